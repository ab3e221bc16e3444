package emqid_test

import (
	"errors"
	"fmt"

	emqid "github.com/echomq/emq-id/bindings/go"
)

// `go test` runs every example and compares what it prints with its Output
// comment: the reference `go doc` shows is checked like any test.

func ExampleParse() {
	id, err := emqid.Parse("USR0KHTOWnGLuC")
	if err != nil {
		panic(err)
	}
	fmt.Println(id.NS(), id.Snowflake(), id.UnixMs(), id.Node(), id.Seq(), id.Hash32())
	// Output: USR 274557032793636864 1769526697641 0 0 234878118
}

func ExampleParse_refused() {
	_, err := emqid.Parse("usr0KHTOWnGLuC")
	fmt.Println(errors.Is(err, emqid.ErrNamespace), err)
	// Output: true emqid: namespace: the namespace must be 3 bytes A-Z
}

func ExampleEncode() {
	text, err := emqid.Encode("USR", 274557032793636864)
	fmt.Println(text, err)
	// Output: USR0KHTOWnGLuC <nil>
}

func ExampleNewMinter() {
	minter, err := emqid.NewMinter(7)
	if err != nil {
		panic(err)
	}
	snowflake, err := minter.NextAt(1769526697641)
	if err != nil {
		panic(err)
	}
	text, _ := emqid.Encode("JOB", snowflake)
	id, _ := emqid.Parse(text)
	fmt.Println(text, id.Node(), id.Seq())
	// Output: JOB0KHTOWnGTMe 7 0
}

func ExampleSlotString() {
	fmt.Println(emqid.SlotString("emq:{orders}:pending"), emqid.SlotString("orders"))
	// Output: 105 105
}

func ExampleJobKey() {
	key, err := emqid.JobKey("orders", "JOB0KHTOWnGLuC")
	fmt.Println(key, err)
	// Output: emq:{orders}:job:JOB0KHTOWnGLuC <nil>
}

func ExampleParseKey() {
	parsed, err := emqid.ParseKey("emq:{orders}:job:JOB0KHTOWnGLuC:lock")
	fmt.Printf("%+v %v\n", parsed, err)
	// Output: {Queue:orders Family:job:<id>:lock Param:JOB0KHTOWnGLuC} <nil>
}

func ExampleXaddID() {
	entry, err := emqid.XaddID("EVT000xY9Wvvcd")
	fmt.Println(entry, err)
	// Output: 1704117200000-1620567 <nil>
}
