//! The `--help` texts, one per command.

pub const MAIN: &str = "\
emq-id: EchoMQ branded ids and Valkey Cluster key placement (contract branded-snowflake/1.0.0)

Usage: emq-id <COMMAND> [ARGS...]

Commands:
  decode ID...               read ids: ns, snowflake, unix_ms, time, node, seq, hash32 (JSON)
  encode NS SNOWFLAKE        write the 14-byte id of a namespace and snowflake
  mint NS [--node N] [-n COUNT]
                             mint ids (the node comes from --node, else EMQ_NODE)
  hash32 ID|SNOWFLAKE...     the placement hash of a snowflake
  min-for TIME...            the smallest snowflake at or after TIME (ISO-8601 or unix ms)
  slot KEY... [--hex]        the cluster hash slot and hashtag of keys (JSON)
  key QUEUE KIND [ID]        build a keyspace key (kinds: pending, active, job)
  route KEY... --cluster HOST:PORT
                             the slot of each key and the node that owns it, read
                             from a live Valkey or Redis Cluster (JSON)
  check                      run the contract self-check on this build

Commands that take several values read one per line from stdin when none is given.
Bad input: `error: <gate>: <message>` on stderr and exit status 2.
`emq-id <COMMAND> --help` tells more.
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
       emq-id mint NS --node N --at MS [--at MS]...

Mints COUNT (default 1) ids, one per line (--json: the decode object).
The node is --node, else the EMQ_NODE environment variable; either way this
process takes the node's host-local claim (a lock file in EMQ_NODE_DIR, default
$TMPDIR/emq-id), so a second live process on this host asking for the same node
is refused (gate node, naming the holder's pid). With neither, a node no live
process of this host holds is drawn and a warning says so: ids may still collide
with another host's, so configure a node (or a lease) in production.
With --at, replays the contract's pure mint step from a fresh minter at the
given clock readings (unix ms), printing one JSON line per step:
{\"now_ms\", \"id\", \"snowflake\"} or {\"now_ms\", \"error\"} for a refused step.
Gates: range (node outside 0..=1023, clock past the 41-bit limit, bad namespace),
node (the node is held by another live process of this host)."
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
Usage: emq-id key [--hex] QUEUE KIND [ID]

Prints the keyspace key (emq-keyspace/1): emq:{QUEUE}:pending, emq:{QUEUE}:active,
emq:{QUEUE}:job:ID. QUEUE is 1-128 bytes of [A-Za-z0-9_.:-]; ID a JOB id.
Errors, checked in this order: queue, kind, then the id's gate (namespace when
it is not a JOB id)."
        }
        "route" => {
            "\
Usage: emq-id route [--hex] KEY... --cluster HOST:PORT

Reads the cluster's slot map once (CLUSTER SLOTS from HOST:PORT) and prints one
JSON object per key: {\"key\", \"slot\", \"node\"}, the node being the primary
that owns the key's slot. With --hex the keys are given as hex bytes."
        }
        "check" => {
            "\
Usage: emq-id check

Checks this build against the contract's own vectors; exit 0 when it agrees."
        }
        _ => return None,
    })
}
