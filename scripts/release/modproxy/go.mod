module github.com/taskrouting/taskrouting-go/scripts/release/modproxy

go 1.24.0

require golang.org/x/mod v0.32.0
