module github.com/carhub/backend/services/fuel

go 1.26.8

replace github.com/carhub/backend/pkg => ../../pkg
