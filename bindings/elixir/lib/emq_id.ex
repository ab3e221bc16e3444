defmodule EmqId do
  @moduledoc """
  EchoMQ branded ids: 14 bytes, a three-letter namespace and 11 base62 digits
  of a 63-bit snowflake, with exactly the answers of the emq-id Rust core
  (contract `branded-snowflake/1.0.0`, `contract/0`), for Elixir and Erlang.

  Results are `{:ok, value}` or `{:error, gate}`, the gate being the
  contract's name as an atom (one of `gates/0`); the codec functions have
  bang variants that raise `EmqId.Error`. Snowflakes are integers: one
  outside `0..2^64-1` is `{:error, :range}`; a value of another type raises
  `ArgumentError`.

      iex> EmqId.encode("USR", 274557032793636864)
      {:ok, "USR0KHTOWnGLuC"}
      iex> EmqId.parse("USR0KHTOWnGL!C")
      {:error, :charset}

  The module runs the core's self-check vectors through this API when it
  loads and refuses to load when they disagree (`EmqId.SelfCheck`).
  """
  import EmqId.Host
  alias EmqId.{Error, Native, SelfCheck}

  @on_load :check_on_load

  @typedoc """
  The contract's name for a refusal: one of `gates/0` (the gate-coverage test
  holds this list to the core's), or `:self_check` from `self_check!/0`.
  """
  @type gate :: :length | :namespace | :charset | :range | :queue | :kind | :node | :self_check
  @type snowflake :: non_neg_integer()

  # The modules the self-check drives besides this one.
  @drives [EmqId.Native, EmqId.Host, EmqId.SelfCheck, EmqId.Keyspace, EmqId.Minter]

  @doc false
  def check_on_load do
    case Enum.find_value(@drives, &unavailable/1) do
      nil -> refuse_on_mismatch(self_check())
      # While the project compiles, a module can load before its neighbours are
      # written; in a release (embedded mode) modules load before their
      # on_load functions run. Either way the check runs again when the
      # application starts (EmqId.Application), before anything uses it.
      {_module, reason} when reason in [:nofile, :embedded] -> :ok
      {module, reason} -> {:error, "emq_id refuses to load: #{inspect(module)} did not load (#{inspect(reason)})"}
    end
  end

  defp unavailable(module) do
    case Code.ensure_loaded(module) do
      {:module, _} -> nil
      {:error, reason} -> {module, reason}
    end
  end

  # The code server logs an on_load's error: the message names the line.
  defp refuse_on_mismatch(:ok), do: :ok
  defp refuse_on_mismatch({:error, which}), do: {:error, "emq_id refuses to load: #{which}"}

  @doc """
  The contract this binding implements, as the core names it.

      iex> EmqId.contract()
      "branded-snowflake/1.0.0"
  """
  @spec contract() :: String.t()
  def contract, do: Native.contract()

  @doc """
  Every gate of the contract, in the order the core checks them, as the atoms
  the functions here answer (`{:error, gate}`, `EmqId.Error`'s `:gate`). The
  first four are decode's:

      iex> Enum.take(EmqId.gates(), 4)
      [:length, :namespace, :charset, :range]
  """
  @spec gates() :: [gate]
  def gates, do: Native.gates()

  @doc """
  The highest node a snowflake can carry (nodes run from 0), from the core:
  `EmqId.Minter.new/1` refuses a node above it with `:range`.

      iex> EmqId.Minter.new(EmqId.max_node() + 1)
      {:error, :range}
  """
  @spec max_node() :: non_neg_integer
  def max_node, do: Native.max_node()

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
  The namespace and snowflake of an id, or the first of decode's gates (the
  first four of `gates/0`, in that order) that refuses it.

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

  @doc """
  Whether the bytes are a branded id (`parse/1` would accept them).

      iex> EmqId.valid?("USR0KHTOWnGLuC")
      true
      iex> EmqId.valid?("not-a-branded-id")
      false
  """
  @spec valid?(binary) :: boolean
  def valid?(id), do: Native.valid(binary!(id, "an id"))

  @doc """
  The namespace of an id (a sub-binary of it), or the gate that refuses it.

      iex> EmqId.namespace("USR0KHTOWnGLuC")
      {:ok, "USR"}
      iex> EmqId.namespace("usr0KHTOWnGLuC")
      {:error, :namespace}
  """
  @spec namespace(binary) :: {:ok, binary} | {:error, gate}
  def namespace(id) do
    with {:ok, {ns, _}} <- parse(id), do: {:ok, ns}
  end

  @doc "`namespace/1`, raising `EmqId.Error`."
  def namespace!(id), do: Error.unwrap!(namespace(id))

  @doc """
  Orders two ids: by namespace, then by snowflake (the order of their bytes).
  An invalid id is refused with its gate, `a`'s first.

      iex> EmqId.compare("USR0KHTOWnGLuC", "USR0NgWEfAEJfs")
      {:ok, :lt}
      iex> EmqId.compare("USR0NgWEfAEJfs", "USR0NgWEfAEJfs")
      {:ok, :eq}
      iex> EmqId.compare("USR0KHTOWnGLuC", "usr")
      {:error, :length}
  """
  @spec compare(binary, binary) :: {:ok, :lt | :eq | :gt} | {:error, gate}
  def compare(a, b), do: Native.compare(binary!(a, "an id"), binary!(b, "an id"))

  @doc "`compare/2`, raising `EmqId.Error`."
  def compare!(a, b), do: Error.unwrap!(compare(a, b))

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
  Runs the core's self-check vectors through this API (`EmqId.SelfCheck`):
  `:ok`, or `{:error, which}` naming the first line this build answers
  differently, and its answer.
  """
  @spec self_check() :: :ok | {:error, String.t()}
  def self_check do
    case SelfCheck.run(SelfCheck.vectors(), self_check_api()) do
      :ok -> :ok
      {:error, line, answer} -> {:error, "self-check line #{inspect(line)}: this build answered #{inspect(answer)}"}
    end
  end

  @doc false
  # The public functions the self-check drives. Captures made in this module
  # are local funs: they work while @on_load runs, when a remote call into
  # this module does not yet.
  def self_check_api do
    %{
      decode: &decode/1,
      parse: &parse/1,
      valid?: &valid?/1,
      namespace: &namespace/1,
      compare: &compare/2,
      encode: &encode/2,
      hash32: &hash32/1,
      unix_ms: &unix_ms/1,
      min_for: &min_for/1,
      minter_new: &EmqId.Minter.new/1,
      next_at: &EmqId.Minter.next_at/2,
      slot: &EmqId.Keyspace.slot/1,
      hashtag: &EmqId.Keyspace.hashtag/1,
      key: &EmqId.Keyspace.key/2,
      key_with_id: &EmqId.Keyspace.key/3,
      xadd_id: &EmqId.Keyspace.xadd_id/1
    }
  end

  @doc "`self_check/0`, raising `EmqId.Error` (gate `:self_check`) on a mismatch."
  def self_check! do
    case self_check() do
      :ok -> :ok
      {:error, which} -> raise Error, {:self_check, "this build disagrees with #{contract()} on #{which}"}
    end
  end
end
