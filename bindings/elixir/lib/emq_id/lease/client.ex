defmodule EmqId.Lease.Client do
  @moduledoc """
  What `EmqId.Lease.Holder` needs of a Valkey client: Redix's own
  `command/2` and `pipeline/2`, so `{Redix, conn}` is a client as it is.

  The holder sends each lease script with its `WAIT` in one pipeline: the
  pipeline must reach the primary that holds the reserve's slot (the slot of
  `EmqId.Lease.key/0`, the one key every script touches), on one connection, so that `WAIT` counts the
  replicas of that very write. Give it a connection to that primary, or a
  cluster-aware client that routes the whole pipeline there. The holder
  reads every error reply with the core (`EmqId.Lease.read_error/2`): a
  `MOVED`, `READONLY`, `TRYAGAIN`, `CLUSTERDOWN`, `NOREPLICAS`, `OOM` or
  `MISCONF` is written again a little later (a cluster-aware client follows
  the move meanwhile), never taken for a lost connection.

  An `ASK` (the reserve's slot migrating, its key already on the node named)
  is followed by the holder itself: `ASKING`, the script and its `WAIT`,
  pipelined on one connection to that node, through `pipeline_at/4`. A
  client module without it — Redix alone — cannot follow one: the write did
  not run (`:not_run`), and is sent again where it was until the migration
  ends. The first acquire is then tried for a TTL and refused by name
  (`{:error, %EmqId.Error{gate: :node}}`, the message ending with the `ASK`);
  a held lease keeps being renewed, is fenced (nothing minted on it) once
  the migration lasts longer than TTL − margin, and is lost (counted in
  `lost`, `:lost` told) once it lasts longer than a TTL: the holder then
  tries to take another node until the migration ends.

  An error reply inside a pipeline's results is an exception struct (Redix
  gives `%Redix.Error{message: ...}`); the holder reads it with
  `Exception.message/1`.
  """

  @typedoc "A client's connection: whatever its module takes (a pid or a name for Redix)."
  @type conn :: term

  @doc "Sends one command and answers its reply."
  @callback command(conn, [binary]) :: {:ok, term} | {:error, term}

  @doc "Sends the commands on one connection and answers their replies, in order."
  @callback pipeline(conn, [[binary]]) :: {:ok, [term]} | {:error, term}

  @doc """
  Sends the commands on one connection to the node at `host:port`, not
  through the client's routing, and answers their replies, in order. A
  `host` of `nil` is the host the client's connection was opened to (a node
  that cannot name its own address redirects to `:port`).
  """
  @callback pipeline_at(conn, host :: String.t() | nil, :inet.port_number(), [[binary]]) ::
              {:ok, [term]} | {:error, term}

  @optional_callbacks pipeline_at: 4
end
