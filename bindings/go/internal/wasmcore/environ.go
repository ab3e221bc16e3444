package wasmcore

import (
	"context"
	"encoding/binary"
	"os"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// The module's environment is the process's node settings (EMQ_NODE,
// EMQ_NODE_DIR) as they are when
// the core first reads them (when it takes the node), as the native library
// reads them: a program may set EMQ_NODE after it imported the package.
// Nothing else of the environment reaches the module.
// wazero's WASI fixes an environment when the module is instantiated, so its
// two environment functions are replaced by these (wasi-libc asks once and
// keeps the answer).
func instantiateWASI(ctx context.Context, r wazero.Runtime) error {
	builder := r.NewHostModuleBuilder(wasi_snapshot_preview1.ModuleName)
	wasi_snapshot_preview1.NewFunctionExporter().ExportFunctions(builder)
	builder.NewFunctionBuilder().WithFunc(environSizesGet).Export("environ_sizes_get")
	builder.NewFunctionBuilder().WithFunc(environGet).Export("environ_get")
	_, err := builder.Instantiate(ctx)
	return err
}

// environment is "NAME=value\x00" of each setting present now.
func environment() [][]byte {
	var vars [][]byte
	if node, ok := os.LookupEnv("EMQ_NODE"); ok {
		vars = append(vars, []byte("EMQ_NODE="+node+"\x00"))
	}
	// Always given: the core's own default is the temporary directory, which WASI does not have.
	dir := guestDir(defaultClaimDir(os.Getenv("EMQ_NODE_DIR")))
	return append(vars, []byte("EMQ_NODE_DIR="+dir+"\x00"))
}

const errnoSuccess, errnoFault = 0, 21

// asked is the environment environSizesGet answered with, which environGet
// then writes: read twice, it could change in between and overrun the buffer
// the module sized from the first answer.
var asked struct {
	sync.Mutex
	vars [][]byte
}

func environSizesGet(_ context.Context, m api.Module, count, size uint32) uint32 {
	asked.Lock()
	defer asked.Unlock()
	asked.vars = environment()
	total := 0
	for _, v := range asked.vars {
		total += len(v)
	}
	if !m.Memory().WriteUint32Le(count, uint32(len(asked.vars))) || !m.Memory().WriteUint32Le(size, uint32(total)) {
		return errnoFault
	}
	return errnoSuccess
}

func environGet(_ context.Context, m api.Module, pointers, buf uint32) uint32 {
	asked.Lock()
	defer asked.Unlock()
	for _, v := range asked.vars {
		var p [4]byte
		binary.LittleEndian.PutUint32(p[:], buf)
		if !m.Memory().Write(pointers, p[:]) || !m.Memory().Write(buf, v) {
			return errnoFault
		}
		pointers += 4
		buf += uint32(len(v))
	}
	return errnoSuccess
}
