module github.com/echomq/emq-id/conformance/go

go 1.22

require github.com/echomq/emq-id/bindings/go v0.0.0

replace github.com/echomq/emq-id/bindings/go => ../../bindings/go
