defmodule EmqId.SelfCheckTest do
  # The core's self-check vectors through the public API: every line holds;
  # a corrupted copy is refused with its first wrong line named (the fake of
  # the load refusal); and a module whose NIF answers a line wrong does not load.
  use ExUnit.Case, async: false
  doctest EmqId.SelfCheck

  alias EmqId.SelfCheck

  setup_all do
    %{text: SelfCheck.vectors()}
  end

  defp line(text, op), do: text |> String.split("\n") |> Enum.find(&String.starts_with?(&1, op <> " "))

  # The real text with one line replaced: every other line still holds.
  defp corrupt(text, line, bad), do: String.replace(text, line <> "\n", bad <> "\n")

  defp swap_last(line, word), do: line |> String.split(" ") |> List.replace_at(-1, word) |> Enum.join(" ")

  test "every line of the core's vectors holds, each on its own and all together", %{text: text} do
    lines = String.split(text, "\n", trim: true)
    assert length(lines) >= 10

    for l <- lines, do: assert(SelfCheck.run(l) == :ok, l)

    assert SelfCheck.run(text) == :ok
    assert EmqId.self_check() == :ok
    assert EmqId.self_check!() == :ok
  end

  test "a wrong decode line is refused, named, with the API's answer", %{text: text} do
    good = line(text, "decode")
    [_, id | _] = String.split(good, " ")
    {:ok, real} = EmqId.hash32(EmqId.decode!(id).snowflake)
    bad = swap_last(good, "#{real + 1}")

    assert {:error, ^bad, answer} = SelfCheck.run(corrupt(text, good, bad))
    assert elem(answer, 0) == EmqId.decode(id) and elem(answer, 2) == {:ok, real}
  end

  test "a wrong slot line is refused, named, with the slot the API answered", %{text: text} do
    good = line(text, "slot")
    [_, key, slot] = String.split(good, " ")
    bad = "slot #{key} #{rem(String.to_integer(slot) + 1, 16_384)}"

    assert SelfCheck.run(corrupt(text, good, bad)) == {:error, bad, EmqId.Keyspace.slot(key)}
  end

  test "a reject line naming another gate is refused, with the gate the API answered", %{text: text} do
    good = line(text, "reject")
    [_, input, gate] = String.split(good, " ")
    other = Enum.find(EmqId.gates(), &(Atom.to_string(&1) != gate))
    bad = swap_last(good, "#{other}")

    assert SelfCheck.run(corrupt(text, good, bad)) == {:error, bad, {{:error, String.to_atom(gate)}, false}}
    assert EmqId.parse(input) == {:error, String.to_atom(gate)}
  end

  test "the first wrong line is the one named; lines it cannot read or does not know fail too", %{text: text} do
    slot = line(text, "slot")
    key = line(text, "key")
    bad_slot = swap_last(slot, "0")
    bad_key = swap_last(key, "emq:{other}:pending")
    twice = text |> corrupt(slot, bad_slot) |> corrupt(key, bad_key)
    first = Enum.find(String.split(twice, "\n"), &(&1 in [bad_slot, bad_key]))
    assert {:error, ^first, _} = SelfCheck.run(twice)

    assert {:error, "min_for x 1", {:raised, %ArgumentError{}}} = SelfCheck.run("min_for x 1")
    assert SelfCheck.run(text <> "frobnicate 1 2\n") == {:error, "frobnicate 1 2", :unknown_line}
    assert SelfCheck.run("") == {:error, "", :no_lines}
  end

  test "a NIF that answers a line wrong: EmqId refuses to load, the log naming the line" do
    # A fresh VM whose EmqId.Native is this fake: one vector line, a wrong encode.
    fake = """
    defmodule EmqId.Native do
      def self_check_vectors, do: "encode USR 274557032793636864 USR0KHTOWnGLuC\\n"
      def encode(_ns, _s), do: {:ok, "USR0000000WRONG"}
    end
    IO.inspect(Code.ensure_loaded(EmqId))
    """

    {out, 0} = EmqId.TestVM.run(fake, [])
    assert out =~ "{:error, :on_load_failure}"
    assert out =~ "refuses to load" and out =~ "encode USR 274557032793636864 USR0KHTOWnGLuC"
    assert out =~ "USR0000000WRONG"
  end
end
