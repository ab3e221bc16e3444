defmodule EmqId.GatesTest do
  # Every gate of the core (its list, from the NIF) surfaces in Elixir as its
  # atom, both as {:error, gate} and as EmqId.Error's :gate. The table below is
  # SPEC.md §9's Elixir column: a gate the core adds fails here until Elixir
  # maps it and a public call reaches it.
  use ExUnit.Case, async: false
  doctest EmqId.Error

  alias EmqId.{Error, Keyspace, Native}

  @elixir %{
    "length" => :length,
    "namespace" => :namespace,
    "charset" => :charset,
    "range" => :range,
    "queue" => :queue,
    "kind" => :kind,
    "node" => :node
  }

  test "the one error helper maps every gate of the core to its atom (probed through gate_refusal/1)" do
    gates = EmqId.gates()
    assert gates != []

    for {atom, index} <- Enum.with_index(gates) do
      {name, refusal} = Native.gate_refusal(index)
      expected = Map.get(@elixir, name) || flunk("the core's gate #{inspect(name)} has no Elixir value in this test")
      assert refusal == {:error, expected}, "gate #{name}"
      assert atom == expected, "EmqId.gates/0 at #{index}"
      assert %Error{gate: ^expected} = catch_error(Error.unwrap!(refusal))
    end

    assert_raise ArgumentError, fn -> Native.gate_refusal(length(gates)) end
  end

  test "every gate of the core is reached by a real input: {:error, gate} and the bang's EmqId.Error" do
    reached = reach()

    for gate <- EmqId.gates() do
      {tagged, {bang_gate, message}} = Map.get(reached, gate) || flunk("no input in this test reaches gate #{gate}")
      assert tagged == {:error, gate}, "gate #{gate}"
      assert bang_gate == gate and message =~ "#{gate}", "gate #{gate}: #{message}"
    end
  end

  # What a public call (tagged, then bang) answers for an input each gate refuses.
  defp reach do
    %{
      length: both(fn -> EmqId.parse("USR0KHTOWnGLu") end, fn -> EmqId.parse!("USR0KHTOWnGLu") end),
      namespace: both(fn -> EmqId.namespace("usr0KHTOWnGLuC") end, fn -> EmqId.namespace!("usr0KHTOWnGLuC") end),
      charset: both(fn -> EmqId.decode("USR0KHTOWnGL!C") end, fn -> EmqId.decode!("USR0KHTOWnGL!C") end),
      range:
        both(fn -> EmqId.encode("USR", 0x8000_0000_0000_0000) end, fn -> EmqId.encode!("USR", 0x8000_0000_0000_0000) end),
      queue: both(fn -> Keyspace.key("a{b}", "pending") end, fn -> Keyspace.key!("a{b}", "pending") end),
      kind: both(fn -> Keyspace.key("orders", "done") end, fn -> Keyspace.key!("orders", "done") end),
      node: node_refusal()
    }
  end

  defp both(tagged, bang) do
    %Error{gate: gate, message: message} = catch_error(bang.())
    {tagged.(), {gate, message}}
  end

  # `node` is not a property of an input: a fresh VM (claims in a directory of
  # this test's own) holds node 0, taken through the NIF behind the binding's
  # back; its config then asks for node 1, so EmqId.mint/1 and mint!/1 are
  # refused. (Another live VM holding the node: the two-VM test in emq_id_test.exs.)
  defp node_refusal do
    dir = Path.join(System.tmp_dir!(), "emq-id-elixir-gates-#{System.os_time()}")

    code = """
    {:ok, {0, :set}} = EmqId.Native.set_process_node(0)
    Application.put_env(:emq_id, :node, 1)
    e = try do: EmqId.mint!("JOB"), rescue: (e -> e)
    IO.puts(inspect({EmqId.mint("JOB"), {e.gate, e.message}}))
    """

    {out, 0} = EmqId.TestVM.run(code, [{"EMQ_NODE_DIR", dir}, {"EMQ_NODE", nil}])
    File.rm_rf!(dir)
    out |> String.split("\n", trim: true) |> List.last() |> Code.eval_string() |> elem(0)
  end

  test "EmqId.gate() lists exactly the core's gates (and :self_check)" do
    {:ok, types} = Code.Typespec.fetch_types(EmqId)
    {:type, {:gate, {:type, _, :union, members}, []}} = Enum.find(types, &match?({:type, {:gate, _, _}}, &1))
    assert Enum.map(members, fn {:atom, _, a} -> a end) == EmqId.gates() ++ [:self_check]
  end
end
