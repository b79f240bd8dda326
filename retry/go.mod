module github.com/backofflab/backofflab/retry

go 1.26
