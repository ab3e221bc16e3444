module github.com/echomq/emq-id/bindings/go/bench

go 1.25.0

replace github.com/echomq/emq-id/bindings/go => ../

require (
	github.com/echomq/emq-id/bindings/go v0.0.0
	github.com/mediocregopher/radix/v3 v3.8.1
	github.com/oklog/ulid/v2 v2.1.1
)

require (
	golang.org/x/sys v0.44.0 // indirect
	golang.org/x/xerrors v0.0.0-20191011141410-1b5146add898 // indirect
)
