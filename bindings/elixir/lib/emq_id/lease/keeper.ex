defmodule EmqId.Lease.Keeper do
  @moduledoc """
  The lease keeper's decisions (SPEC.md §5.2), the core's own: which lease
  write is due, what each write came to means, and when to write again. It
  opens no socket and reads no clock: you hand it readings of the monotonic
  clock (`EmqId.LeasedMinter.monotonic_ms/0`) and outcomes
  (`EmqId.Lease.read_error/2` for an error reply, `EmqId.Lease.write_outcome/2`
  otherwise), and it answers. `EmqId.Lease.Holder` is the I/O around it, so
  every runtime's holder renews on one schedule and reads a reply one way.

  A holder's loop: `next/2` says which write is due (`:acquire`, `:renew`,
  or `:expired`: the held lease was answered by no write for a whole TTL,
  stop minting on it, then acquire); send it (the script and its `WAIT`, on
  one connection); `settle/4` what it came to, which says what to do with the
  lease and how many ms on the next write is due. To hand the lease back,
  `release/1`: the write due is then `:release` (the script without `WAIT`),
  settled until `:released` or `:give_up`.

      iex> {:ok, terms} = EmqId.Lease.terms(3_000, 500)
      iex> {:ok, k} = EmqId.Lease.Keeper.start(terms, 0)
      iex> EmqId.Lease.Keeper.next(k, 0)
      :acquire
      iex> # CLUSTERDOWN: the first acquire is tried again within a TTL.
      iex> EmqId.Lease.Keeper.settle(k, :not_run, 0, 0)
      {:retry, 150}
      iex> EmqId.Lease.Keeper.settle(k, :counted, 150, 160)
      {:publish, 1000}
      iex> {EmqId.Lease.Keeper.phase(k), EmqId.Lease.Keeper.next(k, 1_160)}
      {:held, :renew}
      iex> # No renewal answered for a whole TTL: the lease has expired on the server.
      iex> {EmqId.Lease.Keeper.next(k, 3_150), EmqId.Lease.Keeper.phase(k)}
      {:expired, :unleased}

  A keeper is a NIF resource that `next/2` and `settle/4` change: it belongs
  to the one process that keeps the lease.
  """
  import EmqId.Host
  alias EmqId.Native

  @opaque t :: reference()

  @typedoc "The write due: take a node, renew the lease, lose the expired lease and take a node, or hand the lease back."
  @type next :: :acquire | :renew | :expired | :release

  @typedoc """
  Where the holder is: the first acquire (`:starting`, its caller waiting),
  no lease (`:unleased`), a lease taken whose acquire no replica acknowledged
  (`:pending`, nothing minted on it), the lease minted on (`:held`), the
  lease being handed back (`:releasing`, after `release/1`).
  """
  @type phase :: :starting | :unleased | :pending | :held | :releasing

  @typedoc """
  What to do with a write's outcome:

    * `:publish`: the lease taken (or the pending lease renewed) counts: tell a
      pending lease's minter the renewal (`EmqId.LeasedMinter.renewed/3`), and mint on it;
    * `:renewed`: the held lease's renewal counts: tell its minter;
    * `:pend`: the acquire ran unacknowledged: keep the lease, mint nothing on it;
    * `:wait`: a renewal ran unacknowledged: nothing moves;
    * `:lose`: the lease is gone: stop its minter (a held one counts as lost), acquire at once;
    * `:follow`: `ASK`: the same write, `ASKING` in front, to the node named, now; settle what it comes to;
    * `:reroute`: `MOVED`: find the reserve's primary again;
    * `:retry`: the same write again, on the same connection;
    * `:reconnect`: a fault: drop the connection, then write again;
    * `:give_up`: the first acquire gives up: its caller gets `refusal/1`, `WAIT`'s
      refusal (the lease taken released first), or the holder's own fault; while
      releasing, the release did not run (the lease is left to its TTL);
    * `:released`: the release ran: the lease is handed back (the script's
      `1` or `0` says whether it was still the owner's).
  """
  @type action ::
          :publish | :renewed | :pend | :wait | :lose | :follow | :reroute | :retry | :reconnect | :give_up | :released

  @typedoc "What to do, and in how many ms the next write is due (`0`: at once; `0` when giving up)."
  @type step :: {action, non_neg_integer}

  @doc """
  A keeper of leases on `terms`, before its first acquire, begun at
  monotonic `since_mono_ms`; `{:error, :range}` for terms the core refuses.

      iex> EmqId.Lease.Keeper.start(%{ttl_ms: 10, margin_ms: 10}, 0)
      {:error, :range}
  """
  @spec start(EmqId.Lease.terms(), integer) :: {:ok, t} | {:error, :range}
  def start(terms, since_mono_ms) when u64?(since_mono_ms),
    do: with_terms(terms, &Native.keeper_start(&1, &2, since_mono_ms))

  def start(terms, since_mono_ms) do
    integer!(since_mono_ms, "a monotonic reading")
    with_terms(terms, fn _, _ -> {:error, :range} end)
  end

  @doc """
  The write due at monotonic `now_ms`. A held lease none of whose writes the
  server answered for a whole TTL has expired there: `:expired`, and the
  keeper is `:unleased` (stop minting on the lease, then acquire). After
  `release/1`, `:release`.
  """
  @spec next(t, integer) :: next | {:error, :range}
  def next(keeper, now_ms) when u64?(now_ms), do: Native.keeper_next(keeper, now_ms)
  def next(_keeper, now_ms), do: range(integer!(now_ms, "a monotonic reading"))

  @doc """
  Settles a write sent at monotonic `sent_ms` that came to `outcome` (one of
  `EmqId.Lease.outcomes/0`; another atom is an `ArgumentError`), read at
  monotonic `now_ms`: what to do with the lease, and when to write next.

  While starting, a write that did not run (`:moved`, `:not_run`) is tried
  again for up to a TTL from the first try, then the first acquire gives up;
  every node leased, an unacknowledged acquire and a fault give up at once.

      iex> {:ok, k} = EmqId.Lease.Keeper.start(EmqId.Lease.default_terms(), 0)
      iex> EmqId.Lease.Keeper.settle(k, :ask, 0, 1)
      {:follow, 0}
      iex> EmqId.Lease.Keeper.asked?(k)
      true
      iex> EmqId.Lease.Keeper.settle(k, :ask, 1, 2)
      {:give_up, 0}
  """
  @spec settle(t, EmqId.Lease.outcome(), integer, integer) :: step | {:error, :range}
  def settle(keeper, outcome, sent_ms, now_ms) when is_atom(outcome) and u64?(sent_ms) and u64?(now_ms),
    do: Native.keeper_settle(keeper, outcome, sent_ms, now_ms)

  def settle(_keeper, outcome, sent_ms, now_ms) when is_atom(outcome),
    do: integer!(sent_ms, "a monotonic reading") && range(integer!(now_ms, "a monotonic reading"))

  def settle(_keeper, outcome, _sent_ms, _now_ms),
    do: raise(ArgumentError, "an outcome is one of EmqId.Lease.outcomes(), got: #{inspect(outcome)}")

  @doc """
  Begins handing the held or pending lease back: the next write is
  `:release` (the script, without `WAIT`), which `settle/4` follows through
  an `ASK`, sends again after `:moved` (`:reroute`, at once) or `:not_run`
  (`:retry`) — tried three times at most, each try followed through one
  `ASK` at most — and ends with `:released` (it ran) or `:give_up` (it did
  not: the lease is left to its TTL).

      iex> {:ok, k} = EmqId.Lease.Keeper.start(EmqId.Lease.default_terms(), 0)
      iex> EmqId.Lease.Keeper.settle(k, :counted, 0, 1)
      {:publish, 10000}
      iex> EmqId.Lease.Keeper.release(k)
      :ok
      iex> {EmqId.Lease.Keeper.phase(k), EmqId.Lease.Keeper.next(k, 2)}
      {:releasing, :release}
      iex> EmqId.Lease.Keeper.settle(k, :moved, 2, 3)
      {:reroute, 0}
      iex> EmqId.Lease.Keeper.settle(k, :gone, 3, 4)
      {:released, 0}
  """
  @spec release(t) :: :ok
  def release(keeper), do: Native.keeper_release(keeper)

  @doc "Where the holder is."
  @spec phase(t) :: phase
  def phase(keeper), do: Native.keeper_phase(keeper)

  @doc """
  Whether the write about to be sent follows an `ASK`: it goes with `ASKING`
  in front, and its error replies are read with `EmqId.Lease.read_error/2`'s
  `asked` set.
  """
  @spec asked?(t) :: boolean
  def asked?(keeper), do: Native.keeper_asked(keeper)

  @doc "The terms the keeper's leases are kept on."
  @spec terms(t) :: EmqId.Lease.terms()
  def terms(keeper), do: terms_of(Native.keeper_terms(keeper))

  @doc """
  The first acquire's refusal when it gives up on `outcome`:
  `{:error, :node, message}` when every node is leased, or when the reserve
  did not run the acquire for a whole TTL (the holder adds the server's
  reply to the message, which names the state); `nil` for the outcomes
  whose refusal is another's: `WAIT`'s (`EmqId.Lease.parse_wait/2`) or the
  holder's own fault.

      iex> {:error, :node, message} = EmqId.Lease.Keeper.refusal(:not_run)
      iex> message =~ "for a whole TTL"
      true
      iex> EmqId.Lease.Keeper.refusal(:fault)
      nil
  """
  @spec refusal(EmqId.Lease.outcome()) :: {:error, EmqId.gate(), String.t()} | nil
  def refusal(outcome) when is_atom(outcome), do: Native.keeper_refusal(outcome)

  def refusal(outcome),
    do: raise(ArgumentError, "an outcome is one of EmqId.Lease.outcomes(), got: #{inspect(outcome)}")
end
