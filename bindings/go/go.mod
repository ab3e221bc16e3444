module github.com/echomq/emq-id/bindings/go

go 1.22
