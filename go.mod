module github.com/northlog/northlog

go 1.26

require (
	github.com/google/btree v1.1.3 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/ovn-org/libovsdb v0.7.0 // indirect
	golang.org/x/text v0.14.0 // indirect
	pgregory.net/rapid v1.3.0 // indirect
)

tool github.com/ovn-org/libovsdb/cmd/modelgen
