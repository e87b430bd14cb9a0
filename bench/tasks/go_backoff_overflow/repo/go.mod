module example.com/retrykit

go 1.19
