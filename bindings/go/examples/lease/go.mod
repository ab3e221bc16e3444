module github.com/echomq/emq-id/bindings/go/examples/lease

go 1.25.0

replace (
	github.com/echomq/emq-id/bindings/go => ../..
	github.com/echomq/emq-id/bindings/go/holder => ../../holder
)

require (
	github.com/echomq/emq-id/bindings/go v0.0.0
	github.com/echomq/emq-id/bindings/go/holder v0.0.0
	github.com/redis/go-redis/v9 v9.17.3
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/dgryski/go-rendezvous v0.0.0-20200823014737-9f7001d12a5f // indirect
	golang.org/x/sys v0.44.0 // indirect
)
