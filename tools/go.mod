module github.com/carhub/backend/tools

go 1.26.8
