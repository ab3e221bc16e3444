defmodule EmqId.LeaseTest do
  # The node-lease protocol (emq-lease/3, SPEC.md §5.2) through EmqId.Lease and
  # EmqId.LeasedMinter: the scripts and keys as the core hands them out, the
  # reply parsers, the terms, and the leased minter's hand-over, fence, mark
  # and stop. No Valkey here: the holder over these pieces is
  # test/holder_test.exs's, and `cargo xtask chaos` runs it on live clusters.
  use ExUnit.Case, async: false
  doctest EmqId.Lease
  doctest EmqId.LeasedMinter

  alias EmqId.{Keyspace, Lease, LeasedMinter}

  @t 1_769_526_697_641
  @max_u64 0xFFFF_FFFF_FFFF_FFFF
  @i64_past 0x8000_0000_0000_0000

  defp start!(node, previous_mark, now_ms, sent, terms) do
    {:ok, m} = LeasedMinter.start(%{node: node, previous_mark: previous_mark}, now_ms, sent, terms)
    m
  end

  defp terms!(ttl_ms, margin_ms), do: elem(Lease.terms(ttl_ms, margin_ms), 1)

  defp fields(snowflake), do: EmqId.decode!(EmqId.encode!("JOB", snowflake)) |> Map.take([:unix_ms, :node, :seq])

  describe "the lease key" do
    test "one key, the core's, in the reserve's slot: the only key of every script" do
      key = Lease.key()
      assert key == "{emq}:leases"
      assert Keyspace.reserve("leases") == {:ok, key}
      assert Keyspace.slot(key) == Keyspace.slot(Keyspace.version_key())

      for s <- Lease.scripts() do
        assert length(s.keys) == 1, s.name
        assert s.keys |> hd() =~ key, s.name
        # No key is built inside a script: it names KEYS[1] and fields of it.
        refute s.text =~ "{emq}", s.name
        refute s.text =~ "KEYS[2]", s.name
      end
    end
  end

  describe "scripts" do
    test "acquire, renew, release, in order, with their KEYS and ARGV; script/1 finds each" do
      scripts = Lease.scripts()
      assert Enum.map(scripts, & &1.name) == ["acquire", "renew", "release"]
      assert Enum.map(scripts, &{length(&1.keys), length(&1.args)}) == [{1, 5}, {1, 4}, {1, 3}]
      # renew and release name their node last in ARGV (the key is the reserve's, not the node's).
      assert List.last(Lease.script(:renew).args) == "node"
      assert List.last(Lease.script(:release).args) == "node"
      assert Enum.map(scripts, &Lease.script(String.to_atom(&1.name))) == scripts

      for s <- scripts do
        assert is_binary(s.text) and String.valid?(s.text) and s.text =~ "redis.call", s.name
        assert Enum.all?(s.keys ++ s.args, &is_binary/1)
      end

      assert Lease.script(:acquire).text =~ "redis.error_reply('#{Lease.every_node_leased()}')"
      assert Lease.script(:acquire).args |> Enum.at(3) =~ "#{Lease.nodes()}"
      assert_raise ArgumentError, fn -> Lease.script(:lock) end
      assert_raise ArgumentError, fn -> Lease.script("acquire") end
    end

    test "the protocol's facts come from the core" do
      assert Lease.protocol() == "emq-lease/3"
      assert Lease.nodes() == 1024 and Lease.nodes() == EmqId.max_node() + 1
      assert Lease.every_node_leased() == "EMQLEASE every node is leased"
    end
  end

  describe "parsing replies" do
    test "acquire's {node, previous}: -1 is a node never leased; the time limit is the contract's" do
      assert Lease.parse_acquire(7, -1) == {:ok, %{node: 7, previous_mark: nil}}
      assert Lease.parse_acquire(0, 0) == {:ok, %{node: 0, previous_mark: 0}}
      assert Lease.parse_acquire(1023, @t) == {:ok, %{node: 1023, previous_mark: @t}}
      # The last ms a snowflake can carry is the last mark the script can answer.
      {:ok, last} = EmqId.unix_ms(0x7FFF_FFFF_FFFF_FFFF)
      assert Lease.parse_acquire(5, last) == {:ok, %{node: 5, previous_mark: last}}
      assert Lease.parse_acquire(5, last + 1) == {:error, :range}
    end

    test "acquire's replies the script cannot give are :range; other types raise" do
      for {node, previous} <- [{1024, -1}, {-1, -1}, {0, -2}, {@i64_past, -1}, {0, @i64_past}, {0, -@i64_past - 1}] do
        assert Lease.parse_acquire(node, previous) == {:error, :range}, inspect({node, previous})
      end

      assert_raise ArgumentError, fn -> Lease.parse_acquire("7", -1) end
      assert_raise ArgumentError, fn -> Lease.parse_acquire(7, nil) end
    end

    test "acquire's error text: every node leased is :node, with or without ERR; anything else is nil" do
      assert Lease.parse_acquire_error("EMQLEASE every node is leased") == {:error, :node}
      assert Lease.parse_acquire_error("ERR EMQLEASE every node is leased") == {:error, :node}
      assert Lease.parse_acquire_error(Lease.every_node_leased()) == {:error, :node}

      for other <- ["NOSCRIPT No matching script", "ERR ERR EMQLEASE every node is leased", "", <<0xFF>>] do
        assert Lease.parse_acquire_error(other) == nil, inspect(other)
      end

      assert Lease.parse_acquire_error("EMQLEASE every node is leased ") == nil
      assert_raise ArgumentError, fn -> Lease.parse_acquire_error(:every_node_leased) end
    end

    test "renew's and release's reply: 1 is :ok, 0 is :node, anything else :range" do
      assert Lease.parse_renewal(1) == :ok
      assert Lease.parse_renewal(0) == {:error, :node}

      for bad <- [2, -1, @i64_past, @max_u64 + 1, -@i64_past - 1] do
        assert Lease.parse_renewal(bad) == {:error, :range}, inspect(bad)
      end

      assert_raise ArgumentError, fn -> Lease.parse_renewal("1") end
      assert_raise ArgumentError, fn -> Lease.parse_renewal(nil) end
    end

    test "WAIT's reply: at least the replicas wanted is :ok, fewer :node, a negative :range" do
      assert Lease.replicas() == 1

      for {acknowledged, replicas} <- [{1, Lease.replicas()}, {2, 1}, {0, 0}, {3, 2}] do
        assert Lease.parse_wait(acknowledged, replicas) == :ok, inspect({acknowledged, replicas})
      end

      assert Lease.parse_wait(0, 1) == {:error, :node}
      assert Lease.parse_wait(1, 2) == {:error, :node}

      for {acknowledged, replicas} <- [{-1, 1}, {-1, 0}, {1, -1}, {1, 0x1_0000_0000}, {@i64_past, 1}] do
        assert Lease.parse_wait(acknowledged, replicas) == {:error, :range}, inspect({acknowledged, replicas})
      end

      assert_raise ArgumentError, fn -> Lease.parse_wait("1", 1) end
      assert_raise ArgumentError, fn -> Lease.parse_wait(1, nil) end
    end
  end

  describe "terms" do
    test "the core's defaults, and terms of one's own within the core's bounds" do
      assert Lease.default_terms() == %{ttl_ms: 30_000, margin_ms: 5_000}
      # 1 ms <= margin <= ttl - ceil(ttl / 3): the fence after the first renewal's tick.
      assert Lease.terms(3, 1) == {:ok, %{ttl_ms: 3, margin_ms: 1}}
      assert Lease.terms(86_400_000, 57_600_000) == {:ok, %{ttl_ms: 86_400_000, margin_ms: 57_600_000}}

      for {ttl, margin} <-
            [
              {0, 0},
              {1, 0},
              {2, 1},
              {30_000, 0},
              {30_000, 20_001},
              {10, 10},
              {86_400_001, 1},
              {-1, 0},
              {10, -1},
              {@max_u64 + 1, 0}
            ] do
        assert Lease.terms(ttl, margin) == {:error, :range}, inspect({ttl, margin})
      end

      assert_raise ArgumentError, fn -> Lease.terms(30_000, "5000") end
    end

    test "the WAIT timeout of terms the core accepts" do
      assert Lease.wait_ms(Lease.default_terms()) == {:ok, 2_500}
      assert Lease.wait_ms(%{ttl_ms: 3_000, margin_ms: 500}) == {:ok, 250}
      assert Lease.wait_ms(%{ttl_ms: 3, margin_ms: 1}) == {:ok, 1}

      for terms <- [%{ttl_ms: 10, margin_ms: 10}, %{ttl_ms: -1, margin_ms: 0}, %{ttl_ms: @max_u64 + 1, margin_ms: 0}] do
        assert Lease.wait_ms(terms) == {:error, :range}, inspect(terms)
      end

      assert_raise ArgumentError, fn -> Lease.wait_ms(%{ttl_ms: 30_000, margin_ms: "5000"}) end
      assert_raise ArgumentError, fn -> Lease.wait_ms({30_000, 5_000}) end
    end

    test "terms for a TTL: the default margin, a sixth of a short TTL" do
      assert Lease.terms(30_000) == {:ok, Lease.default_terms()}
      assert Lease.terms(60_000) == {:ok, %{ttl_ms: 60_000, margin_ms: 5_000}}
      assert Lease.terms(6) == {:ok, %{ttl_ms: 6, margin_ms: 1}}
      # A TTL under 6 ms has no whole sixth: the margin is the least, 1 ms.
      assert Lease.terms(3) == {:ok, %{ttl_ms: 3, margin_ms: 1}}

      for bad <- [0, 2, 86_400_001, -1, @max_u64 + 1] do
        assert Lease.terms(bad) == {:error, :range}, inspect(bad)
      end

      assert_raise ArgumentError, fn -> Lease.terms("30s") end
    end
  end

  describe "the leased minter" do
    test "the hand-over: it starts after the previous mark + 1, even with an earlier clock" do
      terms = Lease.default_terms()
      # The previous owner's clock was 5 s ahead: its mark is in our future.
      previous = @t + 5_000 + 30_000
      m = start!(3, previous, @t, 0, terms)
      assert LeasedMinter.node(m) == 3
      assert LeasedMinter.terms(m) == terms
      assert LeasedMinter.high_water(m) == previous
      {:ok, first} = LeasedMinter.next_at(m, @t, 0)
      assert fields(first) == %{unix_ms: previous + 1, node: 3, seq: 0}
      {:ok, second} = LeasedMinter.next_at(m, @t, 1)
      assert fields(second) == %{unix_ms: previous + 1, node: 3, seq: 1}
      assert LeasedMinter.high_water(m) == previous + 1

      # A clock a minute behind the mark changes nothing.
      behind = start!(4, @t, @t - 60_000, 0, terms)
      assert fields(elem(LeasedMinter.next_at(behind, @t - 60_000, 0), 1)) == %{unix_ms: @t + 1, node: 4, seq: 0}

      # A node never leased starts now; one whose mark is behind the clock too.
      fresh = start!(5, nil, @t, 0, terms)
      assert LeasedMinter.high_water(fresh) == @t - 1
      assert fields(elem(LeasedMinter.next_at(fresh, @t, 0), 1)) == %{unix_ms: @t, node: 5, seq: 0}
      assert LeasedMinter.high_water(fresh) == @t
      stale = start!(6, @t - 60_000, @t, 0, terms)
      assert fields(elem(LeasedMinter.next_at(stale, @t, 0), 1)).unix_ms == @t
    end

    test "the fence: :node at sent + ttl - margin on the monotonic clock; renewed/3 moves it, never back" do
      m = start!(1, nil, @t, 1_000, terms!(30_000, 5_000))
      assert LeasedMinter.fence_ms(m) == 26_000
      assert {:ok, _} = LeasedMinter.next_at(m, @t, 25_999)
      assert LeasedMinter.next_at(m, @t, 26_000) == {:error, :node}
      # Whatever the wall clock says.
      assert LeasedMinter.next_at(m, @t - 60_000, 26_000) == {:error, :node}
      assert LeasedMinter.next_at(m, @t + 60_000, 1_000_000) == {:error, :node}

      {:ok, mark} = LeasedMinter.next_mark(m, @t + 20_000)
      assert mark == @t + 20_000 + 30_000
      assert LeasedMinter.renewed(m, 21_000, mark) == :ok
      assert LeasedMinter.fence_ms(m) == 46_000
      assert {:ok, _} = LeasedMinter.next_at(m, @t + 20_000, 45_999)
      assert LeasedMinter.next_at(m, @t + 20_000, 46_000) == {:error, :node}

      # A late answer to an older renewal does not pull the fence back.
      assert LeasedMinter.renewed(m, 1_000, mark) == :ok
      assert LeasedMinter.fence_ms(m) == 46_000
    end

    test "next/1 reads the same monotonic clock as monotonic_ms/0" do
      a = LeasedMinter.monotonic_ms()
      Process.sleep(2)
      b = LeasedMinter.monotonic_ms()
      assert is_integer(a) and a >= 0 and b >= a + 2

      # Sent just now, on terms of 200 ms: open now, closed 100 ms on.
      m = start!(2, nil, System.os_time(:millisecond), LeasedMinter.monotonic_ms(), terms!(200, 100))
      assert {:ok, s} = LeasedMinter.next(m)
      assert fields(s).node == 2
      assert abs(fields(s).unix_ms - System.os_time(:millisecond)) < 1_000
      Process.sleep(LeasedMinter.fence_ms(m) - LeasedMinter.monotonic_ms() + 1)
      assert LeasedMinter.next(m) == {:error, :node}
      assert %EmqId.Error{gate: :node} = catch_error(LeasedMinter.next!(m))
    end

    test "the mark: a burst stops at it; a renewal's mark lets it go on; next_mark never goes below it" do
      m = start!(1, nil, @t, 0, terms!(3, 1))
      # 4,096 ids per ms at one clock reading; the stored mark is @t + 3.
      assert count_until_refused(m, @t) == 4 * 4096
      assert LeasedMinter.next_at(m, @t, 0) == {:error, :node}
      assert LeasedMinter.high_water(m) == @t + 3
      assert LeasedMinter.next_mark(m, @t) == {:ok, @t + 6}
      assert LeasedMinter.renewed(m, 0, @t + 6) == :ok
      assert count_until_refused(m, @t) == 3 * 4096
      assert LeasedMinter.high_water(m) == @t + 6

      fresh = start!(1, nil, @t, 0, Lease.default_terms())
      # The mark acquire stored is start + ttl; a clock far behind cannot lower it.
      assert LeasedMinter.next_mark(fresh, @t - 100_000) == {:ok, @t + 30_000}
      assert LeasedMinter.next_mark(fresh, @t + 1) == {:ok, @t + 30_001}
    end

    test "stop/1 closes the fence at once; the high water stays" do
      m = start!(9, nil, @t, 0, Lease.default_terms())
      assert {:ok, _} = LeasedMinter.next_at(m, @t, 0)
      assert LeasedMinter.stop(m) == :ok
      assert LeasedMinter.fence_ms(m) == 0
      assert LeasedMinter.next_at(m, @t, 0) == {:error, :node}
      assert LeasedMinter.next(m) == {:error, :node}
      assert LeasedMinter.high_water(m) == @t
    end

    test "start/4 holds a hand-built acquire and terms to the core's gates; host types" do
      terms = Lease.default_terms()
      good = %{node: 1, previous_mark: nil}
      {:ok, last} = EmqId.unix_ms(0x7FFF_FFFF_FFFF_FFFF)

      refused = [
        {%{good | node: 1024}, @t, 0, terms},
        {%{good | node: -1}, @t, 0, terms},
        {%{good | previous_mark: -1}, @t, 0, terms},
        {%{good | previous_mark: last + 1}, @t, 0, terms},
        # A mark past the time limit once the TTL is added.
        {%{good | previous_mark: last - 10}, @t, 0, terms},
        {good, @t, 0, %{ttl_ms: 10, margin_ms: 10}},
        {good, @t, 0, %{ttl_ms: 0, margin_ms: 0}},
        {good, @i64_past, 0, terms},
        {good, @t, -1, terms},
        {good, @t, @max_u64 + 1, terms}
      ]

      for {acquired, now, sent, t} <- refused do
        assert LeasedMinter.start(acquired, now, sent, t) == {:error, :range}, inspect({acquired, now, sent, t})
      end

      # A clock before the epoch is refused: the acquire script computed the
      # stored mark from this same clock, and the minter must not outrun it.
      assert LeasedMinter.start(good, -1, 0, terms) == {:error, :range}

      assert_raise ArgumentError, fn -> LeasedMinter.start(%{node: 1}, @t, 0, terms) end
      assert_raise ArgumentError, fn -> LeasedMinter.start(good, @t, 0, {30_000, 5_000}) end
      assert_raise ArgumentError, fn -> LeasedMinter.start(%{good | previous_mark: "1"}, @t, 0, terms) end
      assert_raise ArgumentError, fn -> LeasedMinter.start(good, @t, 0.0, terms) end

      {:ok, m} = LeasedMinter.start(good, @t, 0, terms)
      assert LeasedMinter.next_at(m, @i64_past, 0) == {:error, :range}
      assert LeasedMinter.next_at(m, @t, -1) == {:error, :range}
      assert LeasedMinter.next_mark(m, @i64_past) == {:error, :range}
      assert LeasedMinter.renewed(m, -1, @t) == {:error, :range}
      assert LeasedMinter.renewed(m, 0, @max_u64 + 1) == {:error, :range}
      assert_raise ArgumentError, fn -> LeasedMinter.next_at(m, "now", 0) end
      assert_raise ArgumentError, fn -> LeasedMinter.renewed(m, 0, nil) end
    end

    test "8 processes x 20,000 ids through one leased minter: no duplicates, each process's ids increasing" do
      m = start!(700, nil, System.os_time(:millisecond), LeasedMinter.monotonic_ms(), Lease.default_terms())

      runs =
        1..8
        |> Enum.map(fn _ -> Task.async(fn -> for(_ <- 1..20_000, do: LeasedMinter.next!(m)) end) end)
        |> Enum.map(&Task.await(&1, 60_000))

      assert Enum.all?(runs, fn ids -> ids == Enum.sort(ids) and ids == Enum.dedup(ids) end)
      assert MapSet.size(MapSet.new(List.flatten(runs))) == 160_000
    end
  end

  defp count_until_refused(m, now, n \\ 0) do
    case LeasedMinter.next_at(m, now, 0) do
      {:ok, _} -> count_until_refused(m, now, n + 1)
      {:error, :node} -> n
    end
  end
end
