package holder_test

import (
	"context"
	"fmt"

	"github.com/echomq/emq-id/bindings/go/holder"
	"github.com/redis/go-redis/v9"
)

// A lease held in one call over the client the program already has: a
// *redis.ClusterClient here (any node of the cluster as a seed), or a
// *redis.Client of a standalone server. Replicas: 1 waits for one replica
// to acknowledge every lease write, so a failover cannot hand the node to
// another process.
func ExampleAcquire() {
	ctx := context.Background()
	rdb := redis.NewUniversalClient(&redis.UniversalOptions{Addrs: []string{"10.0.0.1:6379", "10.0.0.2:6379"}})
	defer rdb.Close()

	lease, err := holder.Acquire(ctx, rdb, holder.Options{Replicas: 1})
	if err != nil {
		fmt.Println(err) // emqid.ErrNode: every node leased, or not acknowledged
		return
	}
	defer lease.Release(ctx)

	id, err := lease.Mint("JOB") // emqid.ErrNode while no lease is held
	if err != nil {
		fmt.Println(err)
		return
	}
	held, _ := lease.Held()
	fmt.Println(id, held.Node)
}
