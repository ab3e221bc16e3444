defmodule EmqId do
  @moduledoc """
  EchoMQ branded ids: 14 bytes, a three-letter namespace and 11 base62 digits
  of a 63-bit snowflake, with exactly the answers of the emq-id Rust core
  (contract `branded-snowflake/1.0.0`), for Elixir and Erlang.

  Results are `{:ok, value}` or `{:error, gate}`, the gate being the
  contract's name as an atom (`:length`, `:namespace`, `:charset`, `:range`,
  `:queue`, `:kind`, `:node`); the codec functions have bang variants that
  raise `EmqId.Error`. Snowflakes are integers: one outside `0..2^64-1` is
  `{:error, :range}`; a value of another type raises `ArgumentError`.

      iex> EmqId.encode("USR", 274557032793636864)
      {:ok, "USR0KHTOWnGLuC"}
      iex> EmqId.parse("USR0KHTOWnGL!C")
      {:error, :charset}

  The module runs the contract's vectors through this API when it loads and
  refuses to load when they disagree (`self_check!/0`).
  """
  import EmqId.Host
  alias EmqId.{Error, Native}

  @on_load :check_on_load

  @typedoc "The contract's name for a refusal (`:self_check` only from `self_check!/0`)."
  @type gate :: :length | :namespace | :charset | :range | :queue | :kind | :node | :self_check
  @type snowflake :: non_neg_integer()

  @doc false
  def check_on_load do
    case Code.ensure_loaded(EmqId.Native) do
      {:module, _} -> check_now()
      # While the project compiles, a module can load before its neighbour is
      # written; in a release (embedded mode) modules load before their
      # on_load functions run. Either way the check runs again when the
      # application starts (EmqId.Application), before anything uses it.
      {:error, reason} when reason in [:nofile, :embedded] -> :ok
      {:error, reason} -> {:error, "emq_id refuses to load: its NIF did not load (#{inspect(reason)})"}
    end
  end

  defp check_now do
    case self_check() do
      :ok -> :ok
      {:error, which} -> {:error, "emq_id refuses to load: the NIF disagrees with the contract on #{which}"}
    end
  end

  @doc "The contract this binding implements."
  def contract, do: "branded-snowflake/1.0.0"

  @doc """
  The 14-byte id of a namespace and a snowflake.

      iex> EmqId.encode("usr", 1)
      {:error, :range}
  """
  @spec encode(binary, integer) :: {:ok, binary} | {:error, gate}
  def encode(ns, snowflake) when u64?(snowflake), do: Native.encode(binary!(ns, "a namespace"), snowflake)
  def encode(ns, snowflake), do: binary!(ns, "a namespace") && range(integer!(snowflake, "a snowflake"))

  @doc "`encode/2`, raising `EmqId.Error`."
  def encode!(ns, snowflake), do: Error.unwrap!(encode(ns, snowflake))

  @doc """
  The namespace and snowflake of an id: the gates `:length`, `:namespace`,
  `:charset`, `:range`, in that order.

      iex> EmqId.parse("USR0NgWEfAEJfs")
      {:ok, {"USR", 320636799581945856}}
  """
  @spec parse(binary) :: {:ok, {binary, snowflake}} | {:error, gate}
  def parse(id), do: Native.parse(binary!(id, "an id"))

  @doc "`parse/1`, raising `EmqId.Error`."
  def parse!(id), do: Error.unwrap!(parse(id))

  @doc """
  Every field of an id.

      iex> EmqId.decode("USR0KHTOWnGLuC")
      {:ok, %{ns: "USR", snowflake: 274557032793636864, unix_ms: 1769526697641, node: 0, seq: 0}}
  """
  @spec decode(binary) :: {:ok, map} | {:error, gate}
  def decode(id) do
    with {:ok, {ns, s}} <- parse(id) do
      {unix_ms, node, seq} = Native.fields(s)
      {:ok, %{ns: ns, snowflake: s, unix_ms: unix_ms, node: node, seq: seq}}
    end
  end

  @doc "`decode/1`, raising `EmqId.Error`."
  def decode!(id), do: Error.unwrap!(decode(id))

  @doc "Whether the bytes are a branded id."
  @spec valid?(binary) :: boolean
  def valid?(id), do: Native.valid(binary!(id, "an id"))

  @doc """
  The 32-bit placement hash of a snowflake.

      iex> EmqId.hash32(274557032793636864)
      {:ok, 234878118}
  """
  @spec hash32(integer) :: {:ok, non_neg_integer} | {:error, :range}
  def hash32(s) when u64?(s), do: {:ok, Native.hash32(s)}
  def hash32(s), do: range(integer!(s, "a snowflake"))

  @doc "`hash32/1`, raising `EmqId.Error`."
  def hash32!(s), do: Error.unwrap!(hash32(s))

  @doc "Unix milliseconds of a snowflake's minting."
  @spec unix_ms(integer) :: {:ok, non_neg_integer} | {:error, :range}
  def unix_ms(s) when u64?(s), do: {:ok, elem(Native.fields(s), 0)}
  def unix_ms(s), do: range(integer!(s, "a snowflake"))

  @doc "`unix_ms/1`, raising `EmqId.Error`."
  def unix_ms!(s), do: Error.unwrap!(unix_ms(s))

  @doc """
  The smallest snowflake minted at or after an instant (a `DateTime` or Unix
  ms): the lower bound of a time-range scan.

      iex> EmqId.min_for(~U[2026-01-27 15:11:37.641Z])
      {:ok, 274557032793636864}
  """
  @spec min_for(DateTime.t() | integer) :: {:ok, snowflake} | {:error, :range}
  def min_for(%DateTime{} = t), do: min_for(DateTime.to_unix(t, :millisecond))
  def min_for(ms) when i64?(ms), do: Native.min_for(ms)
  def min_for(ms), do: range(integer!(ms, "an instant"))

  @doc "`min_for/1`, raising `EmqId.Error`."
  def min_for!(t), do: Error.unwrap!(min_for(t))

  @doc """
  An id from the process-wide minter. Its node is the application's
  (`config :emq_id, node: 7`), else `EMQ_NODE`, else a drawn node (with a
  `Logger` warning: ids may collide with another host's). The VM holds the
  node on this host for its lifetime: another live process asking for it is
  refused with `:node`.
  """
  @spec mint(binary) :: {:ok, binary} | {:error, gate}
  def mint(ns) do
    ns = binary!(ns, "a namespace")

    with :ok <- EmqId.Node.ensure() do
      Native.mint(ns)
    end
  end

  @doc "`mint/1`, raising `EmqId.Error`."
  def mint!(ns), do: Error.unwrap!(mint(ns))

  @doc """
  Runs the contract's own vectors through this API; `:ok` or `{:error, which}`.
  """
  @spec self_check() :: :ok | {:error, String.t()}
  def self_check do
    s1 = 274_557_032_793_636_864

    checks = [
      {"encode(USR, 274557032793636864)", fn -> encode("USR", s1) == {:ok, "USR0KHTOWnGLuC"} end},
      {"decode(USR0NgWEfAEJfs)", fn -> parse("USR0NgWEfAEJfs") == {:ok, {"USR", 320_636_799_581_945_856}} end},
      {"hash32(274557032793636864)", fn -> hash32(s1) == {:ok, 234_878_118} end},
      {"unix_ms(274557032793636864)", fn -> unix_ms(s1) == {:ok, 1_769_526_697_641} end},
      {"base62(2^63 - 1)", fn -> encode("MAX", 0x7FFF_FFFF_FFFF_FFFF) == {:ok, "MAXAzL8n0Y58m7"} end},
      {"reject USRzzzzzzzzzzz: range", fn -> parse("USRzzzzzzzzzzz") == {:error, :range} end},
      {"reject usr0KHTOWnGLuC: namespace", fn -> parse("usr0KHTOWnGLuC") == {:error, :namespace} end},
      {"reject USR0KHTOWnGLu: length", fn -> parse("USR0KHTOWnGLu") == {:error, :length} end},
      {"reject USR0KHTOWnGL!C: charset", fn -> parse("USR0KHTOWnGL!C") == {:error, :charset} end},
      {"encode(USR, 2^64): range", fn -> encode("USR", 0x1_0000_0000_0000_0000) == {:error, :range} end},
      {"slot(123456789)", fn -> EmqId.Keyspace.slot("123456789") == 12739 end},
      {"hashtag(foo{{bar}}zap)", fn -> EmqId.Keyspace.hashtag("foo{{bar}}zap") == "{bar" end},
      {"key(orders, pending)", fn -> EmqId.Keyspace.key("orders", "pending") == {:ok, "emq:{orders}:pending"} end},
      {"xadd_id(EVT000xY9Wvvcd)", fn -> EmqId.Keyspace.xadd_id("EVT000xY9Wvvcd") == {:ok, "1704117200000-1620567"} end}
    ]

    case Enum.find(checks, fn {_, check} -> not check.() end) do
      nil -> :ok
      {which, _} -> {:error, which}
    end
  end

  @doc "`self_check/0`, raising `EmqId.Error` (gate `:self_check`) on a mismatch."
  def self_check! do
    case self_check() do
      :ok -> :ok
      {:error, which} -> raise Error, {:self_check, "this build disagrees with #{contract()} on #{which}"}
    end
  end

  @doc false
  def range(_integer), do: {:error, :range}
end
