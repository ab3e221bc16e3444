# Per-call cost of the NIF beside the empty NIF (the floor) and plain
# pure-Elixir anchors, written here: a bit-by-bit CRC16 over the hashtag (as
# the bus computes slots today), an Integer-based base62 codec, and minting
# on :atomics. One run, best of 5 rounds, ns per call.
# Run: cargo xtask bench elixir (or, in bindings/elixir: MIX_ENV=bench mix run --no-start bench/bench.exs;
# the empty NIF exists only in the MIX_ENV=bench build)

defmodule Bench.Anchors do
  import Bitwise
  @alphabet ~c"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" |> List.to_tuple()
  @index for({c, i} <- Enum.with_index(Tuple.to_list(@alphabet)), into: %{}, do: {c, i})

  def slot(key), do: crc16(hashtag(key), 0) &&& 16383

  defp hashtag(key) do
    with {open, 1} <- :binary.match(key, "{"),
         {close, 1} when close > open + 1 <- :binary.match(key, "}", scope: {open + 1, byte_size(key) - open - 1}) do
      binary_part(key, open + 1, close - open - 1)
    else
      _ -> key
    end
  end

  defp crc16(<<>>, crc), do: crc

  defp crc16(<<b, rest::binary>>, crc) do
    crc =
      Enum.reduce(1..8, bxor(crc, b <<< 8), fn _, c ->
        if (c &&& 0x8000) != 0, do: bxor(c <<< 1, 0x1021) &&& 0xFFFF, else: c <<< 1 &&& 0xFFFF
      end)

    crc16(rest, crc)
  end

  def encode(ns, s) do
    digits = Integer.digits(s, 62)
    pad = List.duplicate(?0, 11 - length(digits))
    ns <> List.to_string(pad ++ Enum.map(digits, &elem(@alphabet, &1)))
  end

  def decode(<<ns::binary-size(3), payload::binary-size(11)>>) do
    {ns, payload |> :binary.bin_to_list() |> Enum.reduce(0, fn c, acc -> acc * 62 + Map.fetch!(@index, c) end)}
  end

  # The contract's mint step over :atomics (a compare-and-swap loop), node 1.
  def mint(ref) do
    now = (System.os_time(:millisecond) - 1_704_067_200_000) <<< 12
    old = :atomics.get(ref, 1)
    next = max(now, old + 1)

    case :atomics.compare_exchange(ref, 1, old, next) do
      :ok -> (next >>> 12 <<< 22) ||| 1 <<< 12 ||| (next &&& 4095)
      _ -> mint(ref)
    end
  end
end

defmodule Bench do
  @n 200_000

  def ns_per_call(f) do
    best =
      for _ <- 1..5 do
        {us, _} = :timer.tc(fn -> loop(f, @n) end)
        us * 1000 / @n
      end
      |> Enum.min()

    Float.round(best, 1)
  end

  defp loop(_f, 0), do: :ok

  defp loop(f, n) do
    f.()
    loop(f, n - 1)
  end

  def run do
    s = 274_557_032_793_636_864
    id = "USR0KHTOWnGLuC"
    key = "emq:{orders-07}:job:JOB0KHTOWnGLuC"
    {:ok, minter} = EmqId.Minter.new(2)
    ref = :atomics.new(1, signed: false)
    floor = ns_per_call(fn -> EmqId.Native.noop() end)

    rows = [
      {"hash32", fn -> EmqId.hash32(s) end, nil},
      {"encode", fn -> EmqId.encode("USR", s) end, {"Integer base62", fn -> Bench.Anchors.encode("USR", s) end}},
      {"decode (parse)", fn -> EmqId.parse(id) end, {"Integer base62", fn -> Bench.Anchors.decode(id) end}},
      {"slot (tagged key)", fn -> EmqId.Keyspace.slot(key) end, {"bitwise CRC16", fn -> Bench.Anchors.slot(key) end}}
    ]

    IO.puts("| call | emq-id ns | ÷ empty NIF (#{floor} ns) | anchor | anchor ns | anchor ÷ emq-id |")
    IO.puts("|---|---|---|---|---|---|")

    for {name, f, anchor} <- rows do
      t = ns_per_call(f)

      {a_name, a_t} =
        case anchor do
          nil -> {"–", nil}
          {a_name, a_f} -> {a_name, ns_per_call(a_f)}
        end

      ratio = if a_t, do: "#{Float.round(a_t / t, 2)}×", else: "–"
      IO.puts("| #{name} | #{t} | #{Float.round(t / floor, 2)}× | #{a_name} | #{a_t || "–"} | #{ratio} |")
    end

    many = ns_per_call(fn -> EmqId.Minter.next_many(minter, 1000) end) / 1000
    atomics = ns_per_call(fn -> Bench.Anchors.mint(ref) end)
    next = ns_per_call(fn -> EmqId.Minter.next(minter) end)
    IO.puts("| Minter.next | #{next} | #{Float.round(next / floor, 2)}× | :atomics mint | #{atomics} | #{Float.round(atomics / next, 2)}× |")
    IO.puts("| Minter.next_many, per id (1,000) | #{Float.round(many, 1)} | – | :atomics mint | #{atomics} | #{Float.round(atomics / many, 2)}× |")
  end
end

Bench.run()
