defmodule EmqId.Lease.Client do
  @moduledoc """
  What `EmqId.Lease.Holder` needs of a Valkey client: Redix's own
  `command/2` and `pipeline/2`, so `{Redix, conn}` is a client as it is.

  The holder sends each lease script with its `WAIT` in one pipeline: the
  pipeline must reach the primary that holds the reserve's slot (the slot of
  `EmqId.Lease.key/0`, the one key every script touches), on one connection, so that `WAIT` counts the
  replicas of that very write. Give it a connection to that primary, or a
  cluster-aware client that routes the whole pipeline there. A `MOVED` (or
  any other error reply the protocol does not give) is a fault: the holder
  tries again a little later, and a cluster-aware client follows the move.

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
end
