module github.com/echomq/emq-id/conformance/go

go 1.25.0

require github.com/echomq/emq-id/bindings/go v0.0.0

require golang.org/x/sys v0.44.0 // indirect

replace github.com/echomq/emq-id/bindings/go => ../../bindings/go
