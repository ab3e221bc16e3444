defmodule EmqId.KeeperTest do
  # The lease keeper (SPEC.md §5.2) through EmqId.Lease and EmqId.Lease.Keeper:
  # reading a write's error reply, a redirect, the schedule of terms, and the
  # keeper's decisions, with the host types the core's cannot hold. The vector
  # file's keeper runs are the conformance adapter's (`cargo xtask conformance
  # --target elixir`); the holder around the keeper is holder_test.exs's.
  use ExUnit.Case, async: true
  doctest EmqId.Lease.Keeper

  alias EmqId.Lease
  alias EmqId.Lease.Keeper

  @max_u64 0xFFFF_FFFF_FFFF_FFFF

  defp keeper!(ttl_ms, margin_ms, since) do
    {:ok, terms} = Lease.terms(ttl_ms, margin_ms)
    {:ok, k} = Keeper.start(terms, since)
    k
  end

  describe "reading a write's error reply" do
    test "each reply, as first sent and after ASKING" do
      replies = [
        {Lease.every_node_leased(), :leased, :leased},
        {"ERR " <> Lease.every_node_leased(), :leased, :leased},
        {"ASK 9051 10.0.0.2:7001", :ask, :fault},
        {"ASK 9051 :7001", :ask, :fault},
        {"MOVED 9051 10.0.0.2:7001", :moved, :moved},
        {"READONLY You can't write against a read only replica.", :moved, :moved},
        {"TRYAGAIN Multiple keys request during rehashing of slot", :not_run, :not_run},
        {"CLUSTERDOWN Hash slot not served", :not_run, :not_run},
        {"CLUSTERDOWN The cluster is down", :not_run, :not_run},
        {"LOADING Valkey is loading the dataset in memory", :not_run, :not_run},
        {"MASTERDOWN Link with MASTER is down", :not_run, :not_run},
        {"BUSY Valkey is busy running a script", :not_run, :not_run},
        {"NOREPLICAS Not enough good replicas to write.", :not_run, :not_run},
        {"OOM command not allowed when used memory > 'maxmemory'.", :not_run, :not_run},
        {"MISCONF Errors writing to the AOF file: No space left on device", :not_run, :not_run},
        {"ASK 16384 10.0.0.2:7001", :fault, :fault},
        {"ERR Error running script", :fault, :fault},
        {"", :fault, :fault},
        {<<0xFF, " CLUSTERDOWN">>, :fault, :fault}
      ]

      for {text, first, asked} <- replies do
        assert {Lease.read_error(text, false), Lease.read_error(text, true)} == {first, asked}, inspect(text)
      end

      assert_raise ArgumentError, fn -> Lease.read_error(:clusterdown, false) end
      assert_raise ArgumentError, fn -> Lease.read_error("CLUSTERDOWN", nil) end
    end

    test "a write that answered: held and acknowledged" do
      assert for(held <- [true, false], ack <- [true, false], do: Lease.write_outcome(held, ack)) ==
               [:counted, :unacknowledged, :gone, :gone]

      assert_raise ArgumentError, fn -> Lease.write_outcome(1, true) end
    end

    test "every outcome is one of the type's, and the type lists exactly the core's" do
      assert union(Lease, :outcome) == Lease.outcomes()
    end
  end

  describe "redirects" do
    test "MOVED and ASK name a node; a host left out is nil; anything else is nil" do
      assert Lease.redirect("MOVED 0 10.0.0.2:7001") == %{ask: false, slot: 0, host: "10.0.0.2", port: 7001}

      assert Lease.redirect("ASK 16383 [2001:db8::1]:7001") == %{
               ask: true,
               slot: 16383,
               host: "2001:db8::1",
               port: 7001
             }

      assert Lease.redirect("ASK 9051 ?:7001") == %{ask: true, slot: 9051, host: nil, port: 7001}

      for text <- ["MOVED 16384 10.0.0.2:7001", "ASK 9051", "MOVED 9051 10.0.0.2:70011", "TRYAGAIN x", "", <<0xFF>>] do
        assert Lease.redirect(text) == nil, inspect(text)
      end

      assert_raise ArgumentError, fn -> Lease.redirect(nil) end
    end
  end

  describe "the schedule of terms" do
    test "renewals every third of the TTL, retries a twentieth within 10..250 ms; bad terms are :range" do
      assert Lease.renew_every_ms(%{ttl_ms: 3, margin_ms: 1}) == {:ok, 1}
      assert Lease.renew_every_ms(%{ttl_ms: 600, margin_ms: 100}) == {:ok, 200}
      assert Lease.retry_ms(%{ttl_ms: 3, margin_ms: 1}) == {:ok, 10}
      assert Lease.retry_ms(%{ttl_ms: 600, margin_ms: 100}) == {:ok, 30}
      assert Lease.retry_ms(%{ttl_ms: 86_400_000, margin_ms: 5_000}) == {:ok, 250}

      for terms <- [%{ttl_ms: 10, margin_ms: 10}, %{ttl_ms: -1, margin_ms: 0}, %{ttl_ms: @max_u64 + 1, margin_ms: 0}] do
        assert {Lease.renew_every_ms(terms), Lease.retry_ms(terms)} == {{:error, :range}, {:error, :range}},
               inspect(terms)
      end

      assert_raise ArgumentError, fn -> Lease.retry_ms({30_000, 5_000}) end
      assert_raise ArgumentError, fn -> Lease.renew_every_ms(%{ttl_ms: "30s", margin_ms: 0}) end
    end
  end

  # The atoms of a typespec that is a union of atoms, in order.
  defp union(module, name) do
    {:ok, types} = Code.Typespec.fetch_types(module)
    {:type, {^name, {:type, _, :union, members}, []}} = Enum.find(types, &match?({:type, {^name, _, _}}, &1))
    Enum.map(members, fn {:atom, _, a} -> a end)
  end

  describe "the keeper" do
    test "its writes, phases and actions are typed exactly as the core's" do
      {nexts, phases, actions} = EmqId.Native.keeper_kinds()
      assert {union(Keeper, :next), union(Keeper, :phase), union(Keeper, :action)} == {nexts, phases, actions}
      assert {List.last(nexts), List.last(phases), List.last(actions)} == {:release, :releasing, :released}
    end

    test "a lease's life: taken, renewed, unacknowledged, gone, taken again, expired" do
      k = keeper!(3_000, 500, 0)
      assert Keeper.terms(k) == %{ttl_ms: 3_000, margin_ms: 500}
      assert {Keeper.phase(k), Keeper.next(k, 0)} == {:starting, :acquire}
      assert Keeper.settle(k, :counted, 0, 5) == {:publish, 1_000}
      assert {Keeper.next(k, 1_005), Keeper.settle(k, :counted, 1_005, 1_010)} == {:renew, {:renewed, 1_000}}
      assert Keeper.settle(k, :unacknowledged, 2_010, 2_020) == {:wait, 150}
      assert {Keeper.settle(k, :gone, 2_160, 2_165), Keeper.phase(k)} == {{:lose, 0}, :unleased}
      assert Keeper.settle(k, :leased, 2_165, 2_170) == {:retry, 150}
      assert Keeper.settle(k, :unacknowledged, 2_320, 2_330) == {:pend, 150}
      assert {Keeper.phase(k), Keeper.next(k, 2_480)} == {:pending, :renew}
      assert Keeper.settle(k, :counted, 2_480, 2_490) == {:publish, 1_000}
      assert Keeper.settle(k, :moved, 3_490, 3_495) == {:reroute, 150}
      assert Keeper.settle(k, :fault, 3_645, 3_650) == {:reconnect, 150}
      assert Keeper.next(k, 5_479) == :renew
      assert {Keeper.next(k, 5_480), Keeper.phase(k)} == {:expired, :unleased}
    end

    test "the first acquire: not run is tried for a TTL, then refused by name; ASK followed once" do
      k = keeper!(600, 100, 1_000)
      assert Keeper.settle(k, :not_run, 1_000, 1_001) == {:retry, 30}
      assert Keeper.settle(k, :moved, 1_031, 1_032) == {:reroute, 30}
      assert Keeper.settle(k, :not_run, 1_570, 1_599) == {:retry, 30}
      assert {Keeper.settle(k, :not_run, 1_599, 1_600), Keeper.phase(k)} == {{:give_up, 0}, :unleased}

      k = keeper!(600, 100, 0)
      assert {Keeper.settle(k, :ask, 0, 1), Keeper.asked?(k)} == {{:follow, 0}, true}
      assert {Keeper.settle(k, :counted, 0, 2), Keeper.asked?(k)} == {{:publish, 200}, false}

      for outcome <- [:leased, :unacknowledged, :fault, :gone] do
        assert Keeper.settle(keeper!(600, 100, 0), outcome, 0, 1) == {:give_up, 0}, inspect(outcome)
      end
    end

    test "a release: followed through ASK, sent again after MOVED or not run, tried three times at most" do
      k = keeper!(3_000, 500, 0)
      assert Keeper.settle(k, :counted, 0, 0) == {:publish, 1_000}
      assert Keeper.release(k) == :ok
      assert {Keeper.phase(k), Keeper.next(k, 10)} == {:releasing, :release}
      assert Keeper.settle(k, :moved, 10, 11) == {:reroute, 0}
      assert Keeper.settle(k, :not_run, 11, 12) == {:retry, 150}
      assert {Keeper.settle(k, :not_run, 162, 163), Keeper.phase(k)} == {{:give_up, 0}, :unleased}

      k = keeper!(30_000, 5_000, 0)
      assert Keeper.settle(k, :unacknowledged, 0, 1) == {:give_up, 0}
      Keeper.release(k)
      assert {Keeper.settle(k, :ask, 1, 2), Keeper.asked?(k)} == {{:follow, 0}, true}
      assert {Keeper.settle(k, :ask, 2, 3), Keeper.phase(k)} == {{:give_up, 0}, :unleased}

      for {outcome, action} <- [counted: :released, gone: :released, leased: :give_up, fault: :give_up] do
        k = keeper!(30_000, 5_000, 0)
        Keeper.settle(k, :counted, 0, 0)
        Keeper.release(k)
        assert Keeper.settle(k, outcome, 1, 2) == {action, 0}, inspect(outcome)
        assert {Keeper.phase(k), Keeper.next(k, 3)} == {:unleased, :acquire}
      end
    end

    test "the first acquire's refusal: :node with the core's message, or nil where it is another's" do
      for outcome <- Lease.outcomes() do
        case Keeper.refusal(outcome) do
          {:error, :node, message} -> assert outcome in [:leased, :not_run, :moved] and message != ""
          nil -> assert outcome not in [:leased, :not_run, :moved]
        end
      end

      assert {:error, :node, "every node" <> _} = Keeper.refusal(:leased)
      assert_raise ArgumentError, fn -> Keeper.refusal(:lost) end
      assert_raise ArgumentError, fn -> Keeper.refusal("leased") end
    end

    test "gates: terms the core refuses and instants outside u64 are :range; other types raise" do
      terms = Lease.default_terms()
      assert Keeper.start(%{ttl_ms: 0, margin_ms: 0}, 0) == {:error, :range}
      assert Keeper.start(terms, -1) == {:error, :range}
      assert Keeper.start(terms, @max_u64 + 1) == {:error, :range}
      assert {:ok, _} = Keeper.start(terms, @max_u64)
      assert_raise ArgumentError, fn -> Keeper.start({30_000, 5_000}, 0) end
      assert_raise ArgumentError, fn -> Keeper.start(terms, 0.0) end

      k = keeper!(3_000, 500, 0)
      assert Keeper.next(k, -1) == {:error, :range}
      assert Keeper.settle(k, :counted, -1, 0) == {:error, :range}
      assert Keeper.settle(k, :counted, 0, @max_u64 + 1) == {:error, :range}
      assert_raise ArgumentError, fn -> Keeper.next(k, nil) end
      assert_raise ArgumentError, fn -> Keeper.settle(k, :lost, 0, 0) end
      assert_raise ArgumentError, fn -> Keeper.settle(k, "counted", 0, 0) end
      # Nothing refused moved the keeper.
      assert Keeper.phase(k) == :starting
    end
  end
end
