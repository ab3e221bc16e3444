defmodule EmqId.Lease.Holder.Keeper do
  @moduledoc false
  # The holder's state machine without its I/O (the Rust crate's keeper.rs,
  # Python's _Keeper): plan/1 says the next write, settle/3 reads its
  # answer; the GenServer sends the write between the two.
  #
  #   * held (minted on): renewed every third of the TTL; an acknowledged
  #     renewal moves the fence and the mark, an unacknowledged one moves
  #     nothing; answered gone, it is lost and another node taken at once; so
  #     is a lease no renewal reached for a whole TTL (expired on the server).
  #   * pending (taken, its acquire not acknowledged: nothing minted on it):
  #     renewed until a renewal is acknowledged (then held) or answered gone.
  #   * neither: acquire from a random node, with `now` no earlier than one
  #     past this holder's last minted ms, so its ids keep their order.

  alias EmqId.{Error, Lease, LeasedMinter}
  alias EmqId.Lease.Holder.{Stats, Write}

  defstruct [
    :replicas,
    :terms,
    :wait_ms,
    held: nil,
    pending: nil,
    answered_at: 0,
    not_before: 0,
    ordinals: 0,
    stats: %Stats{}
  ]

  @doc "A keeper of no lease yet."
  def new(replicas, terms, wait_ms), do: %__MODULE__{replicas: replicas, terms: terms, wait_ms: wait_ms}

  @doc "Renewals every third of the TTL."
  def every(k), do: max(div(k.terms.ttl_ms, 3), 1)

  @doc "Retries after a fault or a refusal, soon but not hot."
  def retry(k), do: min(max(div(k.terms.ttl_ms, 20), 10), 250)

  @doc """
  The next write: `{:acquire | :renew | :pending, write, keeper}`, or
  `{:refused, error, keeper}` when this host's clock is one the contract
  cannot hold (checked by a dry start before a node is taken).
  """
  def plan(k) do
    k = expire(k)

    case k.held || k.pending do
      nil -> plan_acquire(k)
      lease -> {if(k.held, do: :renew, else: :pending), renew_write(k, lease), k}
    end
  end

  defp plan_acquire(k) do
    now = max(System.os_time(:millisecond), k.not_before)

    case LeasedMinter.start(%{node: 0, previous_mark: nil}, now, LeasedMinter.monotonic_ms(), k.terms) do
      {:ok, _dry} ->
        token = token()
        args = [token, k.terms.ttl_ms, :rand.uniform(Lease.nodes()) - 1, Lease.nodes(), now]
        {:acquire, Write.new(:acquire, keys(), args, k.replicas, k.wait_ms), k}

      {:error, gate} ->
        {:refused, Error.exception({gate, "this host's clock (#{now} ms) is outside the contract"}), k}
    end
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

  defp renew_write(k, lease) do
    {:ok, mark} = LeasedMinter.next_mark(lease.minter, System.os_time(:millisecond))
    args = [lease.token, k.terms.ttl_ms, mark, lease.held.node]
    Write.new(:renew, keys(), args, k.replicas, k.wait_ms, mark)
  end

  # Every script's KEYS: the reserve's one lease key; the node goes in ARGV.
  defp keys, do: [Lease.key()]

  # A held lease whose fence closed counts as time without one; a whole TTL
  # after the last write the server answered, it has expired there: lost.
  defp expire(%{held: nil} = k), do: k

  defp expire(k) do
    now = LeasedMinter.monotonic_ms()
    k = if now >= LeasedMinter.fence_ms(k.held.minter), do: %{k | stats: Stats.unleased(k.stats)}, else: k
    if now >= k.answered_at + k.terms.ttl_ms, do: lose(k), else: k
  end

  defp lose(%{held: nil} = k), do: k

  defp lose(%{held: lease} = k) do
    LeasedMinter.stop(lease.minter)
    not_before = max(k.not_before, LeasedMinter.high_water(lease.minter) + 1)
    %{k | held: nil, not_before: not_before, stats: Stats.lost(k.stats)}
  end

  defp hold(k, lease, answered_at), do: %{k | held: lease, answered_at: answered_at, stats: Stats.taken(k.stats)}

  @doc """
  Reads an acquire's answer: `{:held | {:refused, error} | {:fault, reason}, keeper}`.
  An unacknowledged acquire is refused with `:node` and kept pending.
  """
  def settle_acquire(k, _write, {:refused, error}), do: {{:refused, error}, k}
  def settle_acquire(k, _write, {:fault, reason}), do: {{:fault, reason}, k}

  def settle_acquire(k, write, {:reply, [node, previous] = reply, acknowledged})
      when is_integer(node) and is_integer(previous) do
    case Lease.parse_acquire(node, previous) do
      {:ok, acquired} -> start(k, write, acquired, acknowledged)
      {:error, gate} -> {{:fault, {:unexpected_reply, "acquire", reply, gate}}, k}
    end
  end

  def settle_acquire(k, _write, {:reply, reply, _}), do: {{:fault, {:unexpected_reply, "acquire", reply}}, k}

  defp start(k, write, acquired, acknowledged) do
    [token, _ttl, _first, _nodes, now] = write.args

    case LeasedMinter.start(acquired, now, write.sent, k.terms) do
      {:ok, minter} ->
        k = %{k | ordinals: k.ordinals + 1}
        lease = %{minter: minter, token: token, held: Map.put(acquired, :ordinal, k.ordinals)}

        case acknowledged do
          :ok -> {:held, hold(k, lease, write.sent)}
          refusal -> {{:refused, refusal}, %{k | pending: lease}}
        end

      # A mark near the end of the contract's time: the node is left to its TTL.
      {:error, gate} ->
        {{:refused, Error.exception({gate, "node #{acquired.node}'s mark is past the contract's time"})}, k}
    end
  end

  @doc """
  Reads a renewal's answer (`kind` from `plan/1`): `{:ok | :retry | :again |
  {:fault, reason}, keeper}` — `:ok` a lease is held and acknowledged,
  `:again` acquire another at once.
  """
  def settle(k, kind, write, answer) do
    case {kind, renewal(write, answer)} do
      {_, {:fault, reason}} -> {{:fault, reason}, k}
      # NOREPLICAS: the renewal did not run; nothing changed.
      {_, :not_run} -> {:retry, k}
      {:renew, {true, :ok}} -> {:ok, renewed(%{k | answered_at: write.sent}, k.held, write)}
      # Still this holder's on the primary, but kept fenced: the mark and fence stay.
      {:renew, {true, _}} -> {:retry, %{k | answered_at: write.sent}}
      {:renew, false} -> {:again, lose(k)}
      {:pending, {true, :ok}} -> {:ok, hold(%{renewed(k, k.pending, write) | pending: nil}, k.pending, write.sent)}
      {:pending, {true, _}} -> {:retry, k}
      # Lost before it counted (a failover took it): take another.
      {:pending, false} -> {:again, forget_pending(k)}
    end
  end

  defp renewed(k, lease, write) do
    :ok = LeasedMinter.renewed(lease.minter, write.sent, write.mark)
    %{k | stats: Stats.leased_again(k.stats)}
  end

  defp forget_pending(k) do
    LeasedMinter.stop(k.pending.minter)
    %{k | pending: nil}
  end

  @doc """
  A renew or release answer: `:not_run`, `{true, acknowledged}` (still this
  holder's), `false` (gone or another's), or `{:fault, reason}`.
  """
  def renewal(_write, {:refused, _}), do: :not_run
  def renewal(_write, {:fault, reason}), do: {:fault, reason}

  def renewal(write, {:reply, reply, acknowledged}) when is_integer(reply) do
    case Lease.parse_renewal(reply) do
      :ok -> {true, acknowledged}
      {:error, :node} -> false
      {:error, _} -> {:fault, {:unexpected_reply, Atom.to_string(write.script), reply}}
    end
  end

  def renewal(write, {:reply, reply, _}), do: {:fault, {:unexpected_reply, Atom.to_string(write.script), reply}}

  @doc """
  Stops minting: `{release_write | nil, was_held, keeper}`, the release of
  what is held or pending with the minter's final high water (no WAIT:
  losing it in a failover leaves the mark higher, which is safe).
  """
  def releasing(k) do
    case k.held || k.pending do
      nil ->
        {nil, false, k}

      lease ->
        LeasedMinter.stop(lease.minter)
        args = [lease.token, LeasedMinter.high_water(lease.minter), lease.held.node]
        write = Write.new(:release, keys(), args, 0, k.wait_ms)
        {write, k.held != nil, %{k | held: nil, pending: nil}}
    end
  end
end
