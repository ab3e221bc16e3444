defmodule EmqId.Lease.Holder do
  @moduledoc """
  A node lease on Valkey held in one call (`emq-lease/3`, SPEC.md §5.2): a
  GenServer that takes a node, renews it, takes another when it is lost, and
  releases it when it stops. Any process mints on it without a message to
  the holder. It is the client's I/O around the core's keeper
  (`EmqId.Lease.Keeper`), which decides every write and its time: renewals
  every third of the TTL, a write that did not count tried again soon
  (`EmqId.Lease.retry_ms/1`), an `ASK` followed (`ASKING`, the script and its
  `WAIT` on one connection to the node named, through the client's
  `pipeline_at/4`), `MOVED`, `TRYAGAIN`, `CLUSTERDOWN` and `NOREPLICAS` tried
  again, the release too.

  Redix alone does not follow an `ASK` (it has no `pipeline_at/4`): while the
  reserve's slot migrates, its writes are tried again where they were sent
  until the migration ends. A first acquire is then refused by name after a
  TTL. A held lease whose slot migrates for longer than TTL − margin is
  fenced (minting stops until a renewal lands), and for longer than a TTL
  is lost (no write of it answered for a whole TTL: counted in `lost`,
  `:lost` told); the holder then tries to take another node until the
  migration ends. See `EmqId.Lease.Client`.

  With Redix (hex.pm, hence Redix, is out of reach where this is built: the
  tests drive the holder through a small RESP client of their own, and
  `cargo xtask chaos` runs the book's copy of this example with a stand-in
  of Redix's three calls over it):

      {:ok, conn} = Redix.start_link(host: "valkey-primary", port: 6379)
      {:ok, lease} = EmqId.Lease.Holder.start_link(client: {Redix, conn}, replicas: 1)
      {:ok, id} = EmqId.Lease.Holder.mint(lease, "JOB")

  `start_link/1` returns once an acquire was acknowledged by `replicas`
  replicas (`WAIT`), and the ids of each later lease come after every id
  minted on the earlier ones. The client is any `EmqId.Lease.Client`
  connected to the primary of the reserve's slot.

  With `notify: pid`, the holder sends `{EmqId.Lease.Holder, holder, event,
  held}` to `pid`, `event` being `:acquired` (the first lease), `:lost`
  (with the lease lost) or `:reacquired` (each later lease).
  """
  use GenServer
  alias EmqId.{Error, LeasedMinter}
  alias EmqId.Lease.Keeper
  alias EmqId.Lease.Holder.{Leases, Options, Published, Stats, Write}

  @typedoc "A lease held: its node, the node's mark when taken (`nil`: never leased), and which lease of this holder (1, 2…)."
  @type held :: %{node: non_neg_integer, previous_mark: non_neg_integer | nil, ordinal: pos_integer}

  @typedoc "Leases taken and lost, the ms without one now (`nil` while held) and the longest such stretch."
  @type stats :: %{
          taken: non_neg_integer,
          lost: non_neg_integer,
          unleased_ms: non_neg_integer | nil,
          longest_unleased_ms: non_neg_integer
        }

  @doc """
  Starts a holder and takes a lease. Options: `client: {module, conn}`
  (required, an `EmqId.Lease.Client`), `replicas:` (`EmqId.Lease.replicas/0`),
  `terms:` (`EmqId.Lease.default_terms/0`), `name:`, `notify:`.

  `{:error, %EmqId.Error{gate: :node}}` when every node is leased, when the
  acquire was not acknowledged (that lease is released), or when the reserve
  did not run it for a whole TTL (the cluster down, resharding, loading,
  without replicas: the message ends with the server's last reply, e.g.
  `CLUSTERDOWN Hash slot not served`); the client's error when Valkey cannot
  be reached, or the reply the protocol does not give; `{:error, %EmqId.Error{gate: :range}}` for
  replicas or terms the core refuses, an `ArgumentError` for options of the
  wrong type. Nothing is sent before the options are checked.
  """
  @spec start_link(keyword) :: {:ok, pid} | {:error, term}
  def start_link(opts) do
    with {:ok, config} <- Options.check(opts) do
      :proc_lib.start_link(__MODULE__, :init_holder, [config])
    end
  end

  @doc "The next snowflake of the lease held now; `{:error, :node}` while none is held or its fence is closed."
  @spec next(GenServer.server()) :: {:ok, EmqId.snowflake()} | {:error, :node}
  def next(holder) do
    with {:ok, {snowflake, _ordinal}} <- next_minted(holder), do: {:ok, snowflake}
  end

  @doc "`next/1`, with the ordinal of the lease that minted the snowflake."
  @spec next_minted(GenServer.server()) :: {:ok, {EmqId.snowflake(), pos_integer}} | {:error, :node}
  def next_minted(holder) do
    case Published.get(holder) do
      nil -> {:error, :node}
      {minter, held} -> with {:ok, s} <- LeasedMinter.next(minter), do: {:ok, {s, held.ordinal}}
    end
  end

  @doc "An id of namespace `ns` on the lease held now (the namespace is checked first: no snowflake is spent on a bad one)."
  @spec mint(GenServer.server(), binary) :: {:ok, String.t()} | {:error, EmqId.gate()}
  def mint(holder, ns) do
    with {:ok, _} <- EmqId.encode(ns, 0),
         {:ok, snowflake} <- next(holder),
         do: EmqId.encode(ns, snowflake)
  end

  @doc "`next/1`, raising `EmqId.Error`."
  def next!(holder), do: Error.unwrap!(next(holder))

  @doc "`next_minted/1`, raising `EmqId.Error`."
  def next_minted!(holder), do: Error.unwrap!(next_minted(holder))

  @doc "`mint/2`, raising `EmqId.Error`."
  def mint!(holder, ns), do: Error.unwrap!(mint(holder, ns))

  @doc "The lease held now, or `nil`."
  @spec held(GenServer.server()) :: held | nil
  def held(holder) do
    with {_minter, held} <- Published.get(holder), do: held
  end

  @doc "Leases taken and lost, and the time without one."
  @spec stats(GenServer.server()) :: stats
  def stats(holder), do: GenServer.call(holder, :stats)

  @doc """
  Stops minting and renewing, hands the node back with the minter's high
  water, and stops the holder (normally). The release goes as the keeper
  says (`EmqId.Lease.Keeper.release/1`): sent again after `MOVED` or a
  refusal that did not run, tried three times at most, each try followed
  through one `ASK` at most. `true` when a held lease was handed back;
  `false` when none was held, it was already gone, or the release did not
  run (Valkey could not be reached, or refused it three times: the lease
  then runs out within its TTL).
  """
  @spec release(GenServer.server()) :: boolean
  def release(holder), do: GenServer.call(holder, :release, :infinity)

  # -- the process

  @doc false
  # Started by :proc_lib so that a refused first lease is {:error, reason}
  # to start_link without an exit signal reaching the linked caller (a
  # GenServer init/1's {:stop, reason} would kill a caller not trapping exits).
  def init_holder(config) do
    Process.flag(:trap_exit, true)

    with :ok <- register(config.name) do
      case first_lease(new_state(config)) do
        {:ok, state, after_ms} ->
          :proc_lib.init_ack({:ok, self()})
          Process.send_after(self(), :tick, after_ms)
          enter_loop(state, config.name)

        {:error, reason} ->
          # The name is free again before the caller hears of the refusal, as GenServer does it.
          unregister(config.name)
          :proc_lib.init_ack({:error, reason})
      end
    else
      {:error, reason} -> :proc_lib.init_ack({:error, reason})
    end
  end

  defp register(nil), do: :ok
  defp register(name), do: if(claim(name), do: :ok, else: {:error, {:already_started, GenServer.whereis(name)}})

  defp claim(name) when is_atom(name) do
    Process.register(self(), name)
  rescue
    ArgumentError -> false
  end

  defp claim({:global, n}), do: :global.register_name(n, self()) == :yes
  defp claim({:via, module, n}), do: module.register_name(n, self()) == :yes

  defp unregister(nil), do: :ok
  defp unregister(name) when is_atom(name), do: Process.unregister(name)
  defp unregister({:global, n}), do: :global.unregister_name(n)
  defp unregister({:via, module, n}), do: module.unregister_name(n)

  defp enter_loop(state, nil), do: :gen_server.enter_loop(__MODULE__, [], state)
  defp enter_loop(state, name) when is_atom(name), do: :gen_server.enter_loop(__MODULE__, [], state, {:local, name})
  defp enter_loop(state, name), do: :gen_server.enter_loop(__MODULE__, [], state, name)

  defp new_state(config) do
    {:ok, keeper} = Keeper.start(config.terms, LeasedMinter.monotonic_ms())

    %{
      client: config.client,
      notify: config.notify,
      keeper: keeper,
      leases: Leases.new(config),
      table: Published.new(),
      shown: nil,
      released: nil
    }
  end

  # The first lease, in start_link's time: writes until the keeper publishes
  # a lease ({:ok, state, ms to the next write}) or gives up ({:error, reason}).
  defp first_lease(state) do
    case step(state) do
      {:publish, after_ms, state} ->
        {:ok, show(state), after_ms}

      {:give_up, reason, state} ->
        # An unacknowledged lease, handed back; if that fails it runs out by itself.
        release_now(state)
        {:error, reason}

      {_action, after_ms, state} ->
        Process.sleep(after_ms)
        first_lease(state)
    end
  end

  @impl true
  def init(_), do: raise("EmqId.Lease.Holder starts with start_link/1")

  @impl true
  def handle_call(:published, _from, state), do: {:reply, state.table, state}
  def handle_call(:stats, _from, state), do: {:reply, Stats.snapshot(state.leases.stats), state}

  def handle_call(:release, _from, state) do
    {released, state} = release_now(state)
    {:stop, :normal, released, state}
  end

  @impl true
  def handle_info(:tick, state) do
    {_action, after_ms, state} = step(state)
    Process.send_after(self(), :tick, after_ms)
    {:noreply, show(state)}
  end

  # The exit of a linked process other than the parent (whose exit stops
  # the holder through terminate/2), or a stray message: nothing to do.
  def handle_info(_other, state), do: {:noreply, state}

  @impl true
  def terminate(_reason, state), do: release_now(state)

  # One write the keeper asks for, settled: {action, ms to the next write,
  # state}, or {:give_up, reason, state} (the first acquire only).
  defp step(state) do
    now = LeasedMinter.monotonic_ms()
    leases = Leases.fenced(state.leases, now)

    # Expired: no write of the held lease was answered for a whole TTL; it is lost, then a node is taken.
    next = Keeper.next(state.keeper, now)
    leases = if next == :expired, do: Leases.lose(leases), else: leases
    write = if next == :renew, do: Leases.renewal(leases), else: Leases.acquisition(leases)
    settle(%{state | leases: leases}, write, Write.send(write, state.client))
  end

  # What `write` came to, settled by the keeper and done; an ASK is followed
  # at once and what the followed write came to settled in turn.
  defp settle(state, write, came) do
    {came, taken, leases} =
      case Leases.taken(state.leases, write, came) do
        {:fault, error} -> {%{came | outcome: :fault, reason: error}, nil, state.leases}
        {taken, leases} -> {came, taken, leases}
      end

    state = %{state | leases: leases}

    case Keeper.settle(state.keeper, came.outcome, write.sent, LeasedMinter.monotonic_ms()) do
      {:follow, _at_once} -> settle(state, write, Write.follow(write, state.client, came.text))
      {:give_up, _} -> {:give_up, refusal(came), %{state | leases: %{leases | pending: taken}}}
      {action, after_ms} -> {action, after_ms, %{state | leases: Leases.act(leases, action, write, taken)}}
    end
  end

  # Why the first acquire gave up: the core's refusal (every node leased; or,
  # naming the server's reply, CLUSTERDOWN, TRYAGAIN, MOVED… for a whole TTL),
  # WAIT's (too few replicas), or the fault (the client's error, a reply the
  # protocol does not give).
  defp refusal(came) do
    case Keeper.refusal(came.outcome) do
      {:error, gate, message} when came.outcome in [:not_run, :moved] ->
        Error.exception({gate, "#{message}: #{came.text}"})

      {:error, gate, message} ->
        Error.exception({gate, message})

      nil ->
        came.refusal || came.reason
    end
  end

  # Publishes the lease held now when it changed, and tells `notify`.
  defp show(%{leases: %{held: lease}, shown: shown} = state) do
    now = lease && lease.held

    if now == shown do
      state
    else
      Published.put(state.table, lease)
      if shown, do: tell(state, :lost, shown)
      if now, do: tell(state, if(now.ordinal == 1, do: :acquired, else: :reacquired), now)
      %{state | shown: now}
    end
  end

  defp tell(%{notify: nil}, _event, _held), do: :ok
  defp tell(%{notify: pid}, event, held), do: send(pid, {__MODULE__, self(), event, held})

  defp release_now(%{released: released} = state) when is_boolean(released), do: {released, state}

  defp release_now(state) do
    {write, was_held, leases} = Leases.releasing(state.leases)
    Published.put(state.table, nil)
    state = %{state | leases: leases, shown: nil}
    # A pending lease is handed back too, though none was held.
    released = write != nil and hand_back(state.keeper, write, state.client) and was_held
    {released, %{state | released: released}}
  end

  # The release, settled by the keeper: followed through an ASK, sent again
  # after MOVED (the client finds the reserve) or a refusal that did not run:
  # tried three times at most, each try followed through one ASK at most. True when it ran and answered 1; false when it
  # answered 0 or the keeper gave up on it (the lease is left to its TTL).
  defp hand_back(keeper, write, client) do
    :ok = Keeper.release(keeper)
    hand_back(keeper, write, client, Write.send(write, client))
  end

  defp hand_back(keeper, write, client, came) do
    case Keeper.settle(keeper, came.outcome, write.sent, LeasedMinter.monotonic_ms()) do
      {:follow, _at_once} ->
        hand_back(keeper, write, client, Write.follow(write, client, came.text))

      {:released, _} ->
        came.outcome == :counted

      {:give_up, _} ->
        false

      {_again, after_ms} ->
        # Slept through even while the holder stops: the release is what stopping does.
        Process.sleep(after_ms)
        write = Write.again(write)
        hand_back(keeper, write, client, Write.send(write, client))
    end
  end
end
