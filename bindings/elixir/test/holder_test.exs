defmodule EmqId.HolderTest.FakeValkey do
  @moduledoc false
  # A scripted Valkey on loopback: it answers each lease script by its Lua
  # text (acquire grants the next node of `nodes`, or answers `acquire` when
  # that is an error text; renew answers `renew`, release `release`, either an
  # error text too; each of them a list of answers given in turn, the last
  # one kept), WAIT with `acks`, ASKING with `asking` (OK; a list in turn
  # too), and logs every command with the connection it came on.
  use GenServer
  alias EmqId.Lease

  def start_link(opts \\ []), do: GenServer.start_link(__MODULE__, opts)
  def port(fake), do: GenServer.call(fake, :port)
  def log(fake), do: GenServer.call(fake, :log)
  def set(fake, settings), do: GenServer.call(fake, {:set, settings})

  @doc "The KEYS of every lease write in the log, in order."
  def keys(fake) do
    for {_conn, ["EVAL", _text, keys | rest]} <- log(fake), do: Enum.take(rest, String.to_integer(keys))
  end

  @doc "The log's lease writes, as {script, args, conn}, WAIT as {:wait, [replicas, ms], conn}."
  def writes(fake) do
    scripts = for s <- Lease.scripts(), into: %{}, do: {s.text, String.to_atom(s.name)}

    for {conn, command} <- log(fake) do
      case command do
        ["EVAL", text, keys | rest] -> {Map.fetch!(scripts, text), Enum.drop(rest, String.to_integer(keys)), conn}
        ["WAIT" | args] -> {:wait, args, conn}
        ["ASKING"] -> {:asking, [], conn}
      end
    end
  end

  @impl true
  def init(opts) do
    {:ok, listen} = :gen_tcp.listen(0, [:binary, active: false, reuseaddr: true, ip: {127, 0, 0, 1}])
    fake = self()
    spawn_link(fn -> accept(listen, fake) end)
    settings = %{nodes: [5, 6, 7, 8], acks: 1, acquire: :grant, renew: 1, release: 1, asking: {:status, "OK"}}
    {:ok, Map.merge(settings, Map.new(opts)) |> Map.merge(%{listen: listen, log: [], marks: %{}})}
  end

  @impl true
  def handle_call(:port, _from, s), do: {:reply, elem(:inet.port(s.listen), 1), s}
  def handle_call(:log, _from, s), do: {:reply, Enum.reverse(s.log), s}
  def handle_call({:set, settings}, _from, s), do: {:reply, :ok, Map.merge(s, Map.new(settings))}

  def handle_call({:command, conn, command}, _from, s) do
    {reply, s} = answer(command, s)
    {:reply, reply, %{s | log: [{conn, command} | s.log]}}
  end

  defp answer(["WAIT" | _], s), do: {s.acks, s}
  defp answer(["ASKING"] = command, s), do: in_turn(:asking, command, s)

  defp answer(["EVAL", text | _] = command, s) do
    script = Enum.find([:acquire, :renew, :release], &(Lease.script(&1).text == text))
    in_turn(script, command, s)
  end

  # The script's answer now: the next of a list of them (the last one kept).
  defp in_turn(script, command, s) do
    case Map.fetch!(s, script) do
      [answer | rest] ->
        {reply, s} = in_turn(script, command, %{s | script => answer})
        {reply, %{s | script => if(rest == [], do: answer, else: rest)}}

      answer ->
        script_answer(script, answer, s)
    end
  end

  defp script_answer(:acquire, :grant, %{nodes: [node | nodes]} = s),
    do: {[node, Map.get(s.marks, node, -1)], %{s | nodes: nodes}}

  defp script_answer(_script, answer, s), do: {answer, s}

  defp accept(listen, fake) do
    {:ok, socket} = :gen_tcp.accept(listen)
    conn = spawn(fn -> serve(socket, fake, "") end)
    :ok = :gen_tcp.controlling_process(socket, conn)
    accept(listen, fake)
  end

  defp serve(socket, fake, buffer) do
    case EmqId.Test.Resp.parse(buffer) do
      {:ok, command, rest} ->
        :gen_tcp.send(socket, encode(GenServer.call(fake, {:command, self(), command})))
        serve(socket, fake, rest)

      :more ->
        case :gen_tcp.recv(socket, 0) do
          {:ok, data} -> serve(socket, fake, buffer <> data)
          {:error, _} -> :gen_tcp.close(socket)
        end
    end
  end

  defp encode(n) when is_integer(n), do: ":#{n}\r\n"
  defp encode({:error, text}), do: "-#{text}\r\n"
  defp encode({:status, text}), do: "+#{text}\r\n"
  defp encode(list) when is_list(list), do: ["*#{length(list)}\r\n" | Enum.map(list, &encode/1)]
end

defmodule EmqId.HolderTest.PipelineOnly do
  @moduledoc false
  # A client module with Redix's two calls and no pipeline_at/4: it cannot reach the node an ASK names.
  @behaviour EmqId.Lease.Client
  defdelegate command(conn, command), to: EmqId.Test.Resp
  defdelegate pipeline(conn, commands), to: EmqId.Test.Resp
end

defmodule EmqId.HolderTest do
  # EmqId.Lease.Holder against a scripted Valkey (FakeValkey above) through
  # the RESP client of test/support: the state machine of the Python, Go and
  # Rust holders, on short terms so that renewals come fast.
  use ExUnit.Case, async: true

  alias EmqId.{Error, Lease}
  alias EmqId.Lease.Holder
  alias EmqId.HolderTest.{FakeValkey, PipelineOnly}
  alias EmqId.Test.Resp

  @short elem(Lease.terms(300), 1)

  setup do
    {:ok, fake} = FakeValkey.start_link()
    {:ok, conn} = Resp.start_link([{"127.0.0.1", FakeValkey.port(fake)}])
    %{fake: fake, client: {Resp, conn}}
  end

  defp start(client, opts), do: Holder.start_link([client: client, notify: self()] ++ opts)

  defp fields(snowflake), do: EmqId.decode!(EmqId.encode!("JOB", snowflake))

  test "an acknowledged acquire is held and minted on, then released with the high water", %{fake: fake, client: c} do
    {:ok, h} = start(c, replicas: 1, terms: @short)
    assert_receive {Holder, ^h, :acquired, %{node: 5, previous_mark: nil, ordinal: 1}}
    assert Holder.held(h) == %{node: 5, previous_mark: nil, ordinal: 1}
    {:ok, id} = Holder.mint(h, "JOB")
    assert EmqId.decode!(id).node == 5
    {:ok, {last, 1}} = Holder.next_minted(h)
    assert fields(last).node == 5
    assert %{taken: 1, lost: 0, unleased_ms: nil} = Holder.stats(h)

    ref = Process.monitor(h)
    assert Holder.release(h) == true
    assert_receive {:DOWN, ^ref, :process, ^h, :normal}
    assert Holder.next(h) == {:error, :node}
    assert Holder.held(h) == nil

    writes = FakeValkey.writes(fake)
    assert [{:acquire, [token | _], conn}, {:wait, ["1", _], conn} | _] = writes
    # Release: the token, the minter's high water (the ms of the last id) and the node, no WAIT after it.
    assert {:release, [^token, high_water, "5"], _} = List.last(writes)
    assert String.to_integer(high_water) == fields(last).unix_ms
    # Every renewal went with its WAIT on one connection, and named its token, TTL, mark and node.
    for [{:renew, _, conn}, next] <- Enum.chunk_every(writes, 2, 1), do: assert({:wait, _, ^conn} = next)
    ttl = "#{@short.ttl_ms}"
    for {:renew, args, _} <- writes, do: assert([^token, ^ttl, _mark, "5"] = args)
    # Every script declared the reserve's one lease key, and only it.
    assert Enum.uniq(FakeValkey.keys(fake)) == [[Lease.key()]]
  end

  test "an unacknowledged acquire mints nothing: it is released and refused with :node", %{fake: fake, client: c} do
    FakeValkey.set(fake, acks: 0)
    assert {:error, %Error{gate: :node} = e} = start(c, replicas: 1, terms: @short)
    assert e.message =~ "acknowledged by 0 of 1"
    assert [{:acquire, [token | _], _}, {:wait, _, _}, {:release, [token, _, "5"], _}] = FakeValkey.writes(fake)
    refute_received {Holder, _, _, _}
  end

  test "every node leased is refused with :node, and nothing is released", %{fake: fake, client: c} do
    FakeValkey.set(fake, acquire: {:error, Lease.every_node_leased()})
    assert {:error, %Error{gate: :node, message: message}} = start(c, replicas: 1)
    # The core's refusal alone: the server's reply is added only to a write that did not run.
    assert message =~ "every node 0..=1023 is leased"
    refute message =~ Lease.every_node_leased()
    assert [{:acquire, _, _}, {:wait, _, _}] = FakeValkey.writes(fake)
  end

  test "NOREPLICAS: the acquire did not run; tried again for a TTL, then refused by name with :node", %{
    fake: fake,
    client: c
  } do
    FakeValkey.set(fake, acquire: {:error, "NOREPLICAS Not enough good replicas to write."})
    began = System.monotonic_time(:millisecond)
    assert {:error, %Error{gate: :node, message: message}} = start(c, replicas: 1, terms: @short)
    assert System.monotonic_time(:millisecond) - began >= @short.ttl_ms
    assert message =~ "for a whole TTL" and message =~ "NOREPLICAS Not enough good replicas"
    # Every try was the acquire and its WAIT; nothing was taken, so nothing released.
    writes = FakeValkey.writes(fake)
    assert length(writes) > 4
    assert Enum.uniq(Enum.map(writes, &elem(&1, 0))) == [:acquire, :wait]
  end

  test "TRYAGAIN: the first acquire is written again on the same connection, and held", %{fake: fake, client: c} do
    FakeValkey.set(fake, acquire: [{:error, "TRYAGAIN Multiple keys request during rehashing of slot"}, :grant])
    assert {:ok, h} = start(c, replicas: 1, terms: @short)
    assert Holder.held(h).node == 5
    assert [{:acquire, _, conn}, {:wait, _, conn}, {:acquire, _, conn}, {:wait, _, conn} | _] = FakeValkey.writes(fake)
    assert Holder.release(h)
  end

  test "ASK: ASKING, the script and its WAIT on one connection to the node named; a release too", %{
    fake: fake,
    client: c
  } do
    {:ok, there} = FakeValkey.start_link()
    port = FakeValkey.port(there)
    FakeValkey.set(fake, acquire: {:error, "ASK 9051 127.0.0.1:#{port}"})
    assert {:ok, h} = start(c, replicas: 1, terms: @short)
    assert %{node: 5, ordinal: 1} = Holder.held(h)
    assert {:ok, _} = Holder.mint(h, "JOB")
    # The key moved on: the release is asked there too, by a node that cannot name its host.
    FakeValkey.set(fake, release: {:error, "ASK 9051 :#{port}"})
    assert Holder.release(h)

    assert [{:asking, [], conn}, {:acquire, [token | _], conn}, {:wait, ["1", _], conn}, {:asking, [], other}, release] =
             FakeValkey.writes(there)

    assert {:release, [^token, _, "5"], ^other} = release
    assert [{:acquire, [^token | _], _}, {:wait, _, _} | _] = FakeValkey.writes(fake)
  end

  test "an ASK from the node asked is a fault: the first acquire gives up with the reply", %{fake: fake, client: c} do
    {:ok, there} = FakeValkey.start_link()
    ask = "ASK 9051 127.0.0.1:#{FakeValkey.port(there)}"
    FakeValkey.set(fake, acquire: {:error, ask})
    FakeValkey.set(there, acquire: {:error, ask})
    assert {:error, %Resp.Error{message: ^ask}} = start(c, replicas: 1, terms: @short)
    assert [{:asking, _, _}, {:acquire, _, _}, {:wait, _, _}] = FakeValkey.writes(there)
  end

  test "an ASK target still loading (ASKING refused with LOADING) did not run: tried again, and held", %{
    fake: fake,
    client: c
  } do
    {:ok, there} = FakeValkey.start_link()
    loading = {:error, "LOADING Valkey is loading the dataset in memory"}
    FakeValkey.set(fake, acquire: {:error, "ASK 9051 127.0.0.1:#{FakeValkey.port(there)}"})
    FakeValkey.set(there, asking: [loading, loading, {:status, "OK"}], acquire: [loading, loading, :grant])
    assert {:ok, h} = start(c, replicas: 1, terms: @short)
    assert %{node: 5, ordinal: 1} = Holder.held(h)
    # Asked three times: twice refused (not run), then taken there.
    assert [{:asking, _, _}, {:acquire, _, _}, {:wait, _, _}, {:asking, _, _}, {:acquire, _, _}, {:wait, _, _} | rest] =
             FakeValkey.writes(there)

    assert [{:asking, _, conn}, {:acquire, _, conn}, {:wait, _, conn}] = Enum.take(rest, 3)
    assert Enum.count(FakeValkey.writes(fake), &match?({:acquire, _, _}, &1)) == 3
    assert Holder.release(h)
  end

  test "an ASK target loading for a TTL: the first acquire is refused by name, not a fault", %{fake: fake, client: c} do
    {:ok, there} = FakeValkey.start_link()
    loading = "LOADING Valkey is loading the dataset in memory"
    FakeValkey.set(fake, acquire: {:error, "ASK 9051 127.0.0.1:#{FakeValkey.port(there)}"})
    FakeValkey.set(there, asking: {:error, loading}, acquire: {:error, loading})
    began = System.monotonic_time(:millisecond)
    assert {:error, %Error{gate: :node, message: message}} = start(c, replicas: 1, terms: @short)
    assert System.monotonic_time(:millisecond) - began >= @short.ttl_ms
    assert message =~ "for a whole TTL" and String.ends_with?(message, ": " <> loading)
  end

  test "an ASK to a client without pipeline_at/4 did not run: tried again for a TTL, then refused by name", %{
    fake: fake,
    client: {_, conn}
  } do
    FakeValkey.set(fake, acquire: {:error, "ASK 9051 127.0.0.1:1"})
    began = System.monotonic_time(:millisecond)
    assert {:error, %Error{gate: :node, message: message}} = start({PipelineOnly, conn}, replicas: 0, terms: @short)
    assert System.monotonic_time(:millisecond) - began >= @short.ttl_ms
    assert message =~ "for a whole TTL" and String.ends_with?(message, ": ASK 9051 127.0.0.1:1")
    # Every try went where the first did: nothing was asked, nothing taken.
    writes = FakeValkey.writes(fake)
    assert length(writes) > 2 and Enum.all?(writes, &match?({:acquire, _, _}, &1))
  end

  test "an ASK to a client without pipeline_at/4: a held lease is renewed again until the migration ends", %{
    fake: fake,
    client: {_, conn}
  } do
    {:ok, terms} = Lease.terms(1_000)
    {:ok, h} = start({PipelineOnly, conn}, replicas: 0, terms: terms)
    renewals = fn -> Enum.count(FakeValkey.writes(fake), &match?({:renew, _, _}, &1)) end
    before = renewals.()
    FakeValkey.set(fake, renew: {:error, "ASK 9051 127.0.0.1:1"})
    # The next renewal (a third of the TTL on), then tried again every retry_ms (50 ms): not lost.
    assert wait_until(fn -> renewals.() - before >= 4 end, 2_000)
    FakeValkey.set(fake, renew: 1)
    Process.sleep(100)
    assert {:ok, {_, 1}} = Holder.next_minted(h)
    assert %{taken: 1, lost: 0} = Holder.stats(h)
    refute_received {Holder, ^h, :lost, _}
    assert Holder.release(h)
  end

  test "an ASK to a client without pipeline_at/4 for longer than a TTL: the lease is lost, another taken", %{
    fake: fake,
    client: {_, conn}
  } do
    {:ok, h} = start({PipelineOnly, conn}, replicas: 0, terms: @short)
    assert_receive {Holder, ^h, :acquired, %{node: 5}}
    FakeValkey.set(fake, renew: {:error, "ASK 9051 127.0.0.1:1"})
    # No renewal answered for a whole TTL: lost (counted), and a node taken again (the acquire is not asked here).
    assert_receive {Holder, ^h, :lost, %{node: 5, ordinal: 1}}, 2_000
    assert_receive {Holder, ^h, :reacquired, %{node: 6, ordinal: 2}}, 2_000
    assert %{taken: 2, lost: 1} = Holder.stats(h)
    FakeValkey.set(fake, renew: 1)
    assert Holder.release(h)
  end

  test "a release answered READONLY (moved), then not run, is sent again and runs", %{fake: fake, client: c} do
    {:ok, h} = start(c, replicas: 0, terms: @short)
    readonly = {:error, "READONLY You can't write against a read only replica."}
    FakeValkey.set(fake, release: [readonly, {:error, "TRYAGAIN Multiple keys"}, 1])
    assert Holder.release(h)
    # The client dropped the connection READONLY came on: sent again on a new one, then on it again.
    assert [{:release, args, first}, {:release, args, again}, {:release, args, again}] = releases(fake)
    assert first != again
  end

  test "a release not run three times is given up: the lease is left to its TTL", %{fake: fake, client: c} do
    {:ok, h} = start(c, replicas: 0, terms: @short)
    FakeValkey.set(fake, release: [{:error, "CLUSTERDOWN The cluster is down"}])
    assert Holder.release(h) == false
    assert length(releases(fake)) == 3
    refute Process.alive?(h)
  end

  test "a release that faults, or answers 0, is sent once", %{fake: fake, client: c} do
    {:ok, h} = start(c, replicas: 0, terms: @short)
    FakeValkey.set(fake, release: {:error, "ERR something the protocol does not give"})
    assert Holder.release(h) == false
    assert [{:release, _, _}] = releases(fake)

    {:ok, h} = start(c, replicas: 0, terms: @short)
    FakeValkey.set(fake, release: 0)
    assert Holder.release(h) == false
    assert [{:release, _, _}, {:release, [_, _, "6"], _}] = releases(fake)
  end

  test "renewals unanswered for a TTL: the lease expires, is lost, and another taken", %{fake: fake, client: c} do
    {:ok, h} = start(c, replicas: 1, terms: @short)
    FakeValkey.set(fake, renew: {:error, "ERR something the protocol does not give"})
    assert_taken_again(fake, h)
    assert Holder.release(h)
  end

  test "a lost lease (renew answers 0) is taken again at once; its ids come after the first's", %{fake: fake, client: c} do
    {:ok, h} = start(c, replicas: 1, terms: @short)
    first = mint_while(h, 1)
    FakeValkey.set(fake, renew: 0)
    assert_taken_again(fake, h)
    {:ok, {second, 2}} = Holder.next_minted(h)
    assert second > Enum.max(first)
    assert fields(second).node == 6
    assert Holder.release(h)
    # The renewals of the second lease and its release name its node.
    writes = FakeValkey.writes(fake)
    assert {:release, [_, _, "6"], _} = List.last(writes)
    [_second_acquire | after_it] = Enum.drop_while(tl(writes), &(elem(&1, 0) != :acquire))
    for {:renew, args, _} <- after_it, do: assert(List.last(args) == "6")
  end

  test "an unacknowledged renewal moves no fence: minting stops, then resumes on the same lease", %{
    fake: fake,
    client: c
  } do
    {:ok, h} = start(c, replicas: 1, terms: @short)
    FakeValkey.set(fake, acks: 0)
    # The fence: sent + ttl - margin = 250 ms after the acquire.
    Process.sleep(300)
    assert Holder.next(h) == {:error, :node}
    assert Holder.held(h).ordinal == 1
    FakeValkey.set(fake, acks: 1)
    Process.sleep(150)
    assert {:ok, {_, 1}} = Holder.next_minted(h)
    assert %{taken: 1, lost: 0, longest_unleased_ms: unleased} = Holder.stats(h)
    assert unleased > 0
    assert Holder.release(h)
  end

  test "minting from many processes repeats nothing", %{client: c} do
    {:ok, h} = start(c, replicas: 0)

    ids =
      1..8
      |> Enum.map(fn _ -> Task.async(fn -> for(_ <- 1..5_000, do: Holder.next!(h)) end) end)
      |> Enum.flat_map(&Task.await(&1, 30_000))

    assert length(Enum.uniq(ids)) == 40_000
    assert Holder.release(h)
  end

  test "stopping the holder releases its lease", %{fake: fake, client: c} do
    {:ok, h} = start(c, replicas: 0)
    GenServer.stop(h)
    assert {:release, _, _} = List.last(FakeValkey.writes(fake))
  end

  test "options are checked before anything is sent", %{fake: fake, client: c} do
    assert {:error, %Error{gate: :range}} = start(c, replicas: -1)
    assert {:error, %Error{gate: :range}} = start(c, replicas: 0x1_0000_0000)
    assert {:error, %Error{gate: :range}} = start(c, terms: %{ttl_ms: 10, margin_ms: 10})
    assert_raise ArgumentError, fn -> start(c, replicas: "1") end
    assert_raise ArgumentError, fn -> start(c, terms: {300, 50}) end
    assert_raise ArgumentError, fn -> start(c, notify: :me) end
    assert_raise ArgumentError, fn -> start(c, ttl: 300) end
    assert_raise ArgumentError, fn -> Holder.start_link(replicas: 0) end
    assert_raise ArgumentError, fn -> Holder.start_link(client: {String, nil}) end
    assert FakeValkey.log(fake) == []
  end

  test "the client's error when Valkey cannot be reached; names; a bad namespace", %{fake: fake, client: c} do
    {:ok, closed} = :gen_tcp.listen(0, ip: {127, 0, 0, 1})
    {:ok, port} = :inet.port(closed)
    :gen_tcp.close(closed)
    {:ok, conn} = Resp.start_link([{"127.0.0.1", port}])
    assert Holder.start_link(client: {Resp, conn}) == {:error, :econnrefused}

    {:ok, h} = start(c, replicas: 0, name: :emq_holder_test)
    assert {:error, gate} = EmqId.encode("job", 0)
    assert Holder.mint(:emq_holder_test, "job") == {:error, gate}
    assert_raise Error, fn -> Holder.mint!(:emq_holder_test, "job") end
    assert {:ok, _} = Holder.mint(:emq_holder_test, "JOB")
    assert Holder.start_link(client: c, name: :emq_holder_test) == {:error, {:already_started, h}}
    assert Holder.release(:emq_holder_test)

    # A refused start leaves its name free.
    FakeValkey.set(fake, acquire: {:error, Lease.every_node_leased()})
    assert {:error, %Error{gate: :node}} = start(c, name: :emq_holder_test)
    assert Process.whereis(:emq_holder_test) == nil
  end

  defp wait_until(done?, ms) do
    cond do
      done?.() -> true
      ms <= 0 -> false
      true -> Process.sleep(10) == :ok and wait_until(done?, ms - 10)
    end
  end

  defp releases(fake), do: Enum.filter(FakeValkey.writes(fake), &match?({:release, _, _}, &1))

  # The first lease (node 5) lost, the next (node 6) taken, and renewed from here on.
  defp assert_taken_again(fake, h) do
    assert_receive {Holder, ^h, :lost, %{node: 5, ordinal: 1}}, 1_000
    assert_receive {Holder, ^h, :reacquired, %{node: 6, ordinal: 2}}, 1_000
    FakeValkey.set(fake, renew: 1)
    assert %{taken: 2, lost: 1} = Holder.stats(h)
  end

  defp mint_while(h, ordinal, ids \\ []) do
    case Holder.next_minted(h) do
      {:ok, {s, ^ordinal}} when length(ids) < 200 -> mint_while(h, ordinal, [s | ids])
      _ -> ids
    end
  end
end
