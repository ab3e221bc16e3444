//! The `--help` texts, one per command.

pub const MAIN: &str = "\
emq-id: EchoMQ branded ids and Valkey Cluster key placement (contract branded-snowflake/1.0.0)

Usage: emq-id <COMMAND> [ARGS...]

Commands:
  decode ID...               read ids: ns, snowflake, unix_ms, time, node, seq, hash32 (JSON)
  encode NS SNOWFLAKE        write the 14-byte id of a namespace and snowflake
  mint NS [--node N | --lease SEEDS [--replicas N]] [-n COUNT]
                             mint ids (the node comes from --node, a lease on Valkey,
                             else EMQ_NODE)
  lease --cluster SEEDS [--replicas N]
                             take a node lease on Valkey, print the node, hold it
                             until interrupted, then release it (emq-lease/3)
  hash32 ID|SNOWFLAKE...     the placement hash of a snowflake
  min-for TIME...            the smallest snowflake at or after TIME (ISO-8601 or unix ms)
  slot KEY... [--hex]        the cluster hash slot and hashtag of keys (JSON)
  key QUEUE TYPE             build a key of a queue (emq-keyspace/2): TYPE as the bus
                             writes it (pending, g:vip:pending, job:ID:lock, ...)
  key --parse KEY...         read keys back: queue, family, parameter (JSON)
  reserve NAME...            the reserve's cross-queue keys, {emq}:NAME
  xadd-id ID...              the stream entry id of EVT ids (<unix_ms>-<tail22>)
  xadd-id --reverse ENTRY... the ids behind stream entry ids (--ns NS, default EVT)
  route KEY... --cluster HOST:PORT [--timeout MS]
                             the slot of each key and the node that owns it, read
                             from a live Valkey or Redis Cluster (JSON)
  check                      run the contract self-check on this build

Commands that take several values read one per line from stdin when none is given.
Bad input: `error: <gate>: <message>` on stderr and exit status 2. A failure
that is not the input's (a server, a closed pipe): `error: io: <what>`, exit 1.
`emq-id <COMMAND> --help` tells more; `emq-id --version` prints the version.
";

pub fn of(command: &str) -> Option<&'static str> {
    Some(match command {
        "decode" => {
            "\
Usage: emq-id decode [--hex] ID...

Prints one JSON object per id:
  {\"id\", \"ns\", \"snowflake\", \"unix_ms\", \"time\", \"node\", \"seq\", \"hash32\"}
64-bit values are decimal strings. With --hex each ID is given as hex bytes.
Gates: length, namespace, charset, range."
        }
        "encode" => {
            "\
Usage: emq-id encode NS SNOWFLAKE

Prints the 14-byte id. NS is three letters A-Z; SNOWFLAKE a decimal below 2^63.
Gate: range (for the snowflake and for the namespace, as the contract's table says)."
        }
        "mint" => {
            "\
Usage: emq-id mint NS [--node N] [-n COUNT] [--json]
       emq-id mint NS --lease SEEDS [--replicas N] [--ttl MS] [--margin MS] [-n COUNT] [--json]
       emq-id mint NS --node N --at MS [--at MS]...

Mints COUNT (default 1) ids, one per line (--json: the decode object).
The node is --node, else the EMQ_NODE environment variable; either way this
process takes the node's host-local claim (a lock file in EMQ_NODE_DIR, default
/tmp/emq-id), so a second live process on this host asking for the same node
is refused (gate node, naming the holder's pid). With neither, a node no live
process of this host holds is drawn and a warning says so: ids may still collide
with another host's, so use a lease or set EMQ_NODE in production.
With --lease, the node is leased from the Valkey server or cluster reached
through SEEDS (HOST:PORT[,HOST:PORT...]) for the run (emq-id lease --help) and
released after it; a lease lost during the run is taken again (another node),
and a mint waits for that at most one TTL before it refuses.
With --at, replays the contract's pure mint step from a fresh minter at the
given clock readings (unix ms), printing one JSON line per step:
{\"now_ms\", \"id\", \"snowflake\"} or {\"now_ms\", \"error\"} for a refused step.
Gates: range (node outside 0..=1023, clock past the 41-bit limit, bad namespace),
node (the node is held by another live process of this host)."
        }
        "lease" => {
            "\
Usage: emq-id lease --cluster SEEDS [--replicas N] [--ttl MS] [--margin MS]

Takes a free node from the Valkey server or cluster reached through SEEDS
(HOST:PORT[,HOST:PORT...], any nodes of one cluster; the one key {emq}:leases,
following a migration of its slot), prints {\"node\", \"previous_mark\", \"lease\"}
(again for each lease taken after a loss, \"lease\" counting them), renews
the lease every third of its TTL (default 30000 ms), and on SIGINT, SIGTERM or
SIGHUP releases it and prints {\"node\", \"released\", \"leases_taken\",
\"leases_lost\", \"longest_unleased_ms\"}.
A lease write counts only once N replicas (default 1) acknowledged it (WAIT):
until then nothing is minted on it and it is refused with gate node, naming
the counts. So a failover that promotes that replica keeps the lease and its
mark. --replicas 0 is for a reserve whose primary has no replica: a failover
may then lose a lease and let two processes mint on one node.
A lease gone, or none of whose writes was answered for a TTL, is taken again
by itself (another node, after every id minted before); a failover is followed
through any seed or any primary a slot map named, a resharding through ASK.
A first acquire the reserve does not run for a TTL (CLUSTERDOWN, TRYAGAIN...)
is refused with gate node, naming the reply. A process killed outright frees its node when the TTL
runs out, and not before. Minting on a lease stops MARGIN ms (default 5000) before
the TTL would run out since the last renewal sent, so an owner cut off from Valkey
never mints on a node another may hold.
Gates: node (every node is leased, or the acquire not acknowledged by N
replicas), range (a bad --ttl/--margin)."
        }
        "hash32" => {
            "\
Usage: emq-id hash32 ID|SNOWFLAKE...

Prints the contract's hash32 of each snowflake (a decimal, or read from an id)."
        }
        "min-for" => {
            "\
Usage: emq-id min-for TIME...

Prints the smallest snowflake at or after TIME: the lower bound of a time-range
scan. TIME is unix milliseconds or ISO-8601 (2026-01-27T15:11:37.641Z, a date,
or an offset like +02:00; no offset means UTC; digits below a millisecond are
truncated). A time before 2024-01-01 answers 0.
Gate: range (a time past the 41-bit limit)."
        }
        "slot" => {
            "\
Usage: emq-id slot [--hex] KEY...

Prints one JSON object per key: {\"key\", \"slot\", \"hashtag\"}; the hashtag is the
part of the key the cluster hashes (the text between the first { and the next },
when not empty). Keys are bytes: with --hex give them as hex, and the answer
then carries key_hex and hashtag_hex."
        }
        "key" => {
            "\
Usage: emq-id key [--hex] QUEUE TYPE
       emq-id key [--hex] QUEUE job ID           (the emq-keyspace/1 form)
       emq-id key --parse KEY...
       emq-id key --queue-prefix QUEUE
       emq-id key --job-prefix QUEUE
       emq-id key --prefix-bytes QUEUE TYPE

Prints the key emq:{QUEUE}:TYPE (emq-keyspace/2), TYPE written as the bus writes
it: pending, active, schedule, dead, ring, wake, meta, paused, repeat, gactive,
glimit, gweight, limiter, events, flow:outbox, metrics:completed[:data],
metrics:failed[:data], g:NAME:pending, de:NAME, repeat:NAME, stream:NAME,
stream:NAME:archived, job:ID, job:ID:lock, job:ID:logs. QUEUE is 1-128 bytes of
[A-Za-z0-9_.:-]; NAME 1-128 bytes of [A-Za-z0-9_.-]; ID a JOB id.
Errors, in this order: queue, then kind (no such family, a bad NAME, an id of
another namespace), or the id's own gate.
--parse prints {\"key\", \"queue\", \"family\", \"param\"} per key (family as a
pattern, e.g. g:<name>:pending); --queue-prefix prints emq:{QUEUE}:;
--job-prefix prints emq:{QUEUE}:job:; --prefix-bytes prints the bytes a family
spends before its parameter (TYPE a family's head such as job: or g:, or a
fixed type)."
        }
        "reserve" => {
            "\
Usage: emq-id reserve NAME...

Prints the reserve's cross-queue key {emq}:NAME (one slot, disjoint from every
queue key); NAME is 1-128 bytes of [A-Za-z0-9_.:-], else kind. The bus's version
fence is reserve version ({emq}:version, holding echomq:2.0.0)."
        }
        "xadd-id" => {
            "\
Usage: emq-id xadd-id ID...
       emq-id xadd-id --reverse [--ns NS] ENTRY...

Prints the stream entry id of each EVT id: <unix_ms>-<tail22>, the id's Unix
milliseconds and its snowflake's low 22 bits (node and sequence). Ids of one
namespace sort as their entry ids, so a stream written in mint order never
refuses an XADD. Another namespace is kind.
--reverse prints the id (namespace NS, default EVT) behind each entry id:
charset for parts that are not decimal, range for a time or tail no snowflake has."
        }
        "route" => {
            "\
Usage: emq-id route [--hex] KEY... --cluster HOST:PORT [--timeout MS]

Reads the cluster's slot map once (CLUSTER SLOTS from HOST:PORT) and prints one
JSON object per key: {\"key\", \"slot\", \"node\"}, the node being the primary
that owns the key's slot. With --hex the keys are given as hex bytes.
--timeout bounds connecting, sending and the whole reply, each (default 5000 ms).
A server that refuses, is not Valkey or Redis, sends what is not a RESP2 reply,
or is silent past the timeout: `error: io: HOST:PORT: <what>`, exit status 1."
        }
        "check" => {
            "\
Usage: emq-id check

Checks this build against the contract's own vectors; exit 0 when it agrees."
        }
        _ => return None,
    })
}
