defmodule EmqIdTest do
  # What the vector file cannot say: return shapes, bang variants, host types,
  # panics, minting from many processes, the node. Gates: gates_test.exs; the
  # load-time self-check: self_check_test.exs.
  use ExUnit.Case, async: false
  doctest EmqId
  doctest EmqId.Keyspace
  doctest EmqId.Minter

  alias EmqId.{Keyspace, Minter, Native}

  @max_u64 0xFFFF_FFFF_FFFF_FFFF

  test "shapes: tuples, maps, bang variants" do
    assert {:ok, %{ns: "USR", snowflake: 274_557_032_793_636_864, node: 0, seq: 0}} = EmqId.decode("USR0KHTOWnGLuC")
    assert EmqId.decode!("USR0KHTOWnGLuC").unix_ms == 1_769_526_697_641
    assert EmqId.valid?("USR0KHTOWnGLuC") and not EmqId.valid?("nope")
    assert EmqId.hash32!(274_557_032_793_636_864) == 234_878_118
    assert %EmqId.Error{gate: :charset} = catch_error(EmqId.parse!("USR0KHTOWnGL!C"))
    assert {:ok, %{queue: "orders", family: "pending", param: nil}} = Keyspace.parse_key("emq:{orders}:pending")
    assert Keyspace.version_key() == "{emq}:version"
    assert Keyspace.from_xadd_id!("1704117200000-1620567") == "EVT000xY9Wvvcd"
    assert Keyspace.prefix_bytes!("orders", "job:") == 17
    assert Keyspace.queue_prefix!("orders") == "emq:{orders}:"
    assert EmqId.compare!("USR0NgWEfAEJfs", "USR0KHTOWnGLuC") == :gt
    assert EmqId.compare("USR0KHTOWnGLuC", "USR0KHTOWnGL!C") == {:error, :charset}
    assert %EmqId.Error{gate: :length} = catch_error(EmqId.compare!("USR", "USR0KHTOWnGLuC"))
    assert EmqId.namespace!("EVT000xY9Wvvcd") == "EVT"
    assert_raise ArgumentError, fn -> EmqId.compare("USR0KHTOWnGLuC", :id) end
  end

  test "integers outside u64 are :range, never wrapped; other types raise ArgumentError" do
    for bad <- [@max_u64 + 1, -1, -@max_u64] do
      assert EmqId.encode("USR", bad) == {:error, :range}
      assert EmqId.hash32(bad) == {:error, :range}
      assert EmqId.unix_ms(bad) == {:error, :range}
      assert Minter.new(bad) == {:error, :range}
    end

    assert {:ok, h} = EmqId.hash32(@max_u64)
    assert h in 0..0xFFFF_FFFF
    assert Minter.new(EmqId.max_node() + 1) == {:error, :range}
    assert Minter.next_at(elem(Minter.new(1), 1), 0x8000_0000_0000_0000) == {:error, :range}
    assert_raise ArgumentError, fn -> Minter.next_many(elem(Minter.new(1), 1), 1_000_001) end
    assert EmqId.min_for(0x8000_0000_0000_0000) == {:error, :range}
    assert_raise ArgumentError, fn -> EmqId.hash32(1.5) end
    assert_raise ArgumentError, fn -> EmqId.encode("USR", :one) end
    assert_raise ArgumentError, fn -> EmqId.parse(:id) end
    assert_raise ArgumentError, fn -> Keyspace.slot(~c"orders") end
    assert_raise ArgumentError, fn -> Minter.next_many(elem(Minter.new(1), 1), -1) end
  end

  test "the pure step: a fresh state at an instant, then the clock going back" do
    assert Minter.next_state(0, 5, 1_769_526_697_641) == {:ok, {268_122_102_337_536, 274_557_032_793_657_344}}

    assert Minter.next_state(268_122_102_337_536, 5, 1_769_526_697_000) ==
             {:ok, {268_122_102_337_537, 274_557_032_793_657_345}}

    assert Minter.next_state(0, EmqId.max_node() + 1, 1_769_526_697_641) == {:error, :range}
    assert_raise ArgumentError, fn -> Minter.next_state(0, 5, 1.0) end
  end

  test "the NIF carries no benchmark floor outside MIX_ENV=bench" do
    Code.ensure_loaded!(Native)
    refute function_exported?(Native, :noop, 0)
  end

  test "a panic in the NIF raises in the caller; the VM and the library live on" do
    assert catch_error(Native.panic_for_test()) == :nif_panicked
    assert EmqId.encode("USR", 1) == {:ok, "USR00000000001"}
  end

  test "8 processes x 100,000 ids through one minter: 0 duplicates, each process's ids increasing" do
    {:ok, minter} = Minter.new(900)

    runs =
      1..8
      |> Enum.map(fn _ -> Task.async(fn -> for(_ <- 1..100_000, do: elem(Minter.next(minter), 1)) end) end)
      |> Enum.map(&Task.await(&1, 60_000))

    assert Enum.all?(runs, fn ids -> ids == Enum.sort(ids) and ids == Enum.dedup(ids) end)
    all = List.flatten(runs)

    IO.puts(
      "\nelixir: 8 processes x 100,000 through one Minter: #{length(all)} ids, #{length(all) - MapSet.size(MapSet.new(all))} duplicates"
    )

    assert MapSet.size(MapSet.new(all)) == 800_000
    assert length(Minter.next_many(minter, 10_000) |> elem(1) |> Enum.uniq()) == 10_000
  end

  defp fresh_vm(code, env), do: EmqId.TestVM.run(code, env)

  test "the node: application config, else EMQ_NODE, else a drawn node with a warning" do
    # A claim directory of this test's own: this VM holds a drawn node in the suite's.
    dir = Path.join(System.tmp_dir!(), "emq-id-elixir-config-#{System.os_time()}")
    env = [{"EMQ_NODE_DIR", dir}]

    mint =
      "Application.put_env(:emq_id, :node, 41); {:ok, id} = EmqId.mint(\"JOB\"); IO.inspect({EmqId.decode!(id).node, EmqId.Node.process_node()})"

    assert {out, 0} = fresh_vm(mint, [{"EMQ_NODE", "42"} | env])
    assert out =~ "{41, {:ok, {41, :set}}}"

    assert {out, 0} =
             fresh_vm("{:ok, id} = EmqId.mint(\"JOB\"); IO.inspect(EmqId.decode!(id).node)", [{"EMQ_NODE", "42"} | env])

    assert out =~ "42"
    assert {out, 0} = fresh_vm("IO.inspect(EmqId.mint(\"JOB\"))", [{"EMQ_NODE", nil} | env])
    assert out =~ "ids may still collide" and out =~ "{:ok, \"JOB"
    assert {out, 0} = fresh_vm("IO.inspect(EmqId.mint(\"JOB\"))", [{"EMQ_NODE", "abc"} | env])
    assert out =~ "{:error, :range}"
    # A configured node past the core's highest is the core's :range too.
    too_high = "Application.put_env(:emq_id, :node, EmqId.max_node() + 1); IO.inspect(EmqId.mint(\"JOB\"))"
    assert {out, 0} = fresh_vm(too_high, env)
    assert out =~ "{:error, :range}"
    File.rm_rf!(dir)
  end

  test "two live VMs on one EMQ_NODE: the second is refused with :node; once the first is gone, the node is free" do
    dir = Path.join(System.tmp_dir!(), "emq-id-elixir-siblings-#{System.os_time()}")
    env = [{~c"EMQ_NODE", ~c"43"}, {~c"EMQ_NODE_DIR", String.to_charlist(dir)}]
    ebin = Path.join(Mix.Project.app_path(), "ebin")
    holder_code = "EmqId.mint!(\"JOB\"); IO.puts(\"held\"); IO.read(:line)"

    holder =
      Port.open({:spawn_executable, System.find_executable("elixir")}, [
        :binary,
        {:line, 1024},
        {:env, env},
        args: ["-pa", ebin, "-e", holder_code]
      ])

    assert_receive {^holder, {:data, {:eol, "held"}}}, 30_000
    shell_env = Enum.map(env, fn {k, v} -> {List.to_string(k), List.to_string(v)} end)

    second_code =
      "IO.inspect(EmqId.mint(\"JOB\")); IO.inspect(EmqId.Native.process_node()); " <>
        "IO.inspect(try do EmqId.mint!(\"JOB\") rescue e -> e.gate end, label: \"mint!\")"

    {second, 0} = fresh_vm(second_code, shell_env)
    assert second =~ "{:error, :node}" and second =~ "node 43 (held by pid" and second =~ "mint!: :node"
    Port.close(holder)
    # The holder's VM ends when its stdin closes, and its claim with it: ask until then (10 s at most).
    third =
      Enum.reduce_while(1..20, nil, fn _, _ ->
        {out, 0} = fresh_vm("IO.inspect(EmqId.mint(\"JOB\"))", shell_env)
        if out =~ "{:ok, ", do: {:halt, out}, else: Process.sleep(500) && {:cont, out}
      end)

    IO.puts(
      "\nelixir: two VMs on EMQ_NODE=43: the second refused (node 43 held), after the first ended: #{String.trim(third)}"
    )

    assert third =~ "{:ok, \"JOB"
    File.rm_rf!(dir)
  end
end
