"""Page tree helpers: URLs, breadcrumbs, the sitemap."""
