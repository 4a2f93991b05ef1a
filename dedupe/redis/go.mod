module github.com/taskrouting/taskrouting-go/dedupe/redis

go 1.24.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/redis/go-redis/v9 v9.20.0
	github.com/stretchr/testify v1.12.1
	github.com/taskrouting/taskrouting-go v0.1.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.41.0 // indirect
	golang.org/x/text v0.14.0 // indirect
	golang.org/x/time v0.14.0 // indirect
)
