module github.com/carhub/backend/services/docqa

go 1.26.8

replace github.com/carhub/backend/pkg => ../../pkg

require github.com/google/uuid v1.6.0 // indirect
