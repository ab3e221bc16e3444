defmodule EmqId.Lease.Holder.Leases do
  @moduledoc false
  # The holder's leases: the one minted on (held), the one taken whose
  # acquire no replica acknowledged yet (pending: nothing minted on it), and
  # what lasts across them (the leases' ordinals, the ms no acquire may start
  # before, the stats). The core's keeper decides (EmqId.Lease.Keeper); this
  # module builds the writes it asks for and does what it says to a lease.
  #
  # A lease: %{minter, token, held: %{node, previous_mark, ordinal}}.

  alias EmqId.{Error, Lease, LeasedMinter}
  alias EmqId.Lease.Holder.{Stats, Write}

  defstruct [:terms, :replicas, :wait_ms, held: nil, pending: nil, not_before: 0, ordinals: 0, stats: %Stats{}]

  @doc "No lease yet."
  def new(config), do: %__MODULE__{terms: config.terms, replicas: config.replicas, wait_ms: config.wait_ms}

  @doc """
  An acquire from a random node, with `now` no earlier than one past this
  holder's last minted ms, so its ids keep their order. Unsendable when this
  host's clock is one the contract cannot hold (a dry start, before a node is taken).
  """
  def acquisition(l) do
    now = max(System.os_time(:millisecond), l.not_before)
    args = [token(), l.terms.ttl_ms, :rand.uniform(Lease.nodes()) - 1, Lease.nodes(), now]

    unsendable =
      case LeasedMinter.start(%{node: 0, previous_mark: nil}, now, LeasedMinter.monotonic_ms(), l.terms) do
        {:ok, _dry} -> nil
        {:error, gate} -> Error.exception({gate, "this host's clock (#{now} ms) is outside the contract"})
      end

    Write.new(:acquire, args, l.replicas, l.wait_ms, unsendable: unsendable)
  end

  # An owner's token must differ from every other owner's (other hosts, this
  # holder's earlier leases); it is no secret. Drawn without :crypto, which
  # the application does not depend on: this host, OS process, clock (ns)
  # and a random draw, hashed.
  defp token do
    {:ok, host} = :inet.gethostname()
    seed = {host, System.pid(), System.os_time(:nanosecond), :erlang.unique_integer(), :rand.bytes(16)}
    Base.encode16(:erlang.md5(:erlang.term_to_binary(seed)), case: :lower)
  end

  @doc "A renewal of the held or pending lease, carrying the minter's next mark."
  def renewal(l) do
    lease = l.held || l.pending
    {:ok, mark} = LeasedMinter.next_mark(lease.minter, System.os_time(:millisecond))
    args = [lease.token, l.terms.ttl_ms, mark, lease.held.node]
    Write.new(:renew, args, l.replicas, l.wait_ms, mark: mark, lease: lease)
  end

  @doc """
  The lease an acquire that ran took (its minter started with the acquire's
  `now` and send time): `{lease, l}`, `{nil, l}` for any other write or
  outcome, or `{:fault, error}` when the node's mark is one the contract
  cannot start after (the node is left to its TTL).
  """
  def taken(l, %Write{script: :acquire} = write, %{acquired: acquired, outcome: outcome})
      when acquired != nil and outcome in [:counted, :unacknowledged] do
    [token, _ttl, _first, _nodes, now] = write.args

    case LeasedMinter.start(acquired, now, write.sent, l.terms) do
      {:ok, minter} ->
        l = %{l | ordinals: l.ordinals + 1}
        {%{minter: minter, token: token, held: Map.put(acquired, :ordinal, l.ordinals)}, l}

      {:error, gate} ->
        {:fault, Error.exception({gate, "node #{acquired.node}'s mark is past the contract's time"})}
    end
  end

  def taken(l, _write, _came), do: {nil, l}

  @doc "What the keeper's `action` does to the leases, after `write` (`taken`: the lease it took, if any)."
  def act(l, :publish, %Write{script: :acquire}, taken), do: hold(l, taken)
  def act(l, :publish, write, _taken), do: hold(%{renewed(l, write) | pending: nil}, write.lease)
  def act(l, :renewed, write, _taken), do: renewed(l, write)
  def act(l, :pend, _write, taken), do: %{l | pending: taken}
  def act(l, :lose, _write, _taken), do: lose(l)
  def act(l, _nothing_moves, _write, _taken), do: l

  defp hold(l, lease), do: %{l | held: lease, stats: Stats.taken(l.stats)}

  defp renewed(l, write) do
    :ok = LeasedMinter.renewed(write.lease.minter, write.sent, write.mark)
    %{l | stats: Stats.leased_again(l.stats)}
  end

  @doc """
  The lease is gone (or expired): a held one's minter stopped, counted lost,
  and the next acquire starts past its high water; a pending one stopped and dropped.
  """
  def lose(%{held: nil, pending: nil} = l), do: l

  def lose(%{held: nil, pending: lease} = l) do
    LeasedMinter.stop(lease.minter)
    %{l | pending: nil}
  end

  def lose(%{held: lease} = l) do
    LeasedMinter.stop(lease.minter)
    not_before = max(l.not_before, LeasedMinter.high_water(lease.minter) + 1)
    %{l | held: nil, not_before: not_before, stats: Stats.lost(l.stats)}
  end

  @doc "A held lease whose fence has closed at monotonic `now` counts as time without one."
  def fenced(%{held: nil} = l, _now), do: l

  def fenced(l, now) do
    if now >= LeasedMinter.fence_ms(l.held.minter), do: %{l | stats: Stats.unleased(l.stats)}, else: l
  end

  @doc """
  Stops minting: `{release | nil, was_held, l}`, the release of what is held
  or pending with the minter's final high water (no WAIT: losing it in a
  failover leaves the mark higher, which is safe).
  """
  def releasing(l) do
    case l.held || l.pending do
      nil ->
        {nil, false, l}

      lease ->
        LeasedMinter.stop(lease.minter)
        args = [lease.token, LeasedMinter.high_water(lease.minter), lease.held.node]
        {Write.new(:release, args, 0, l.wait_ms, lease: lease), l.held != nil, %{l | held: nil, pending: nil}}
    end
  end
end
