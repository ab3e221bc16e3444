defmodule EmqId.Keyspace do
  @moduledoc """
  Placement on a Valkey Cluster (`emq-keyspace/2`): the hash slot of a key,
  and the bus's keys, every one braced with its queue so that all of a
  queue's keys share one slot. `slot/1` is a drop-in for the bus's
  `EchoMQ.Keyspace.slot/1`.

      iex> EmqId.Keyspace.key("orders", "g:vip:pending")
      {:ok, "emq:{orders}:g:vip:pending"}
      iex> EmqId.Keyspace.slot("emq:{orders}:pending") == EmqId.Keyspace.slot("orders")
      true
  """
  import EmqId.Host
  alias EmqId.{Error, Native}

  # Past this, hashing a key could hold a scheduler: a dirty one does it.
  @long 65_536

  @doc "The cluster hash slot of a key (CRC16-XMODEM of its hashtag, mod 16384)."
  @spec slot(binary) :: 0..16383
  def slot(key) when is_binary(key) and byte_size(key) > @long, do: Native.slot_dirty(key)
  def slot(key), do: Native.slot(binary!(key, "a key"))

  @doc """
  The part of the key the cluster hashes: a sub-binary of the key (no copy;
  it keeps the whole key alive, so `:binary.copy/1` it to keep it long).
  """
  @spec hashtag(binary) :: binary
  def hashtag(key) when is_binary(key) and byte_size(key) > @long, do: Native.hashtag_dirty(key)
  def hashtag(key), do: Native.hashtag(binary!(key, "a key"))

  @doc """
  The key of `queue` of a type written as the bus writes it (`"pending"`,
  `"g:vip:pending"`, `"job:JOB0KHTOWnGLuC:lock"`): `:queue`, then `:kind` or
  the id's gate.
  """
  @spec key(binary, binary) :: {:ok, binary} | {:error, EmqId.gate()}
  def key(queue, type), do: Native.key(binary!(queue, "a queue"), binary!(type, "a type"))

  @doc "The `emq-keyspace/1` form `key(queue, \"job\", id)`: the job's key (another type with an id is `:kind`)."
  def key(queue, type, id),
    do: Native.key_with_id(binary!(queue, "a queue"), binary!(type, "a type"), binary!(id, "an id"))

  @doc "`emq:{queue}:job:<id>`; `id` a `JOB` id (its gate, or `:kind`)."
  def job_key(queue, id), do: key(queue, "job", id)

  @doc """
  A queue key read back: the exact inverse of `key/2`.

      iex> EmqId.Keyspace.parse_key("emq:{orders}:job:JOB0KHTOWnGLuC:lock")
      {:ok, %{queue: "orders", family: "job:<id>:lock", param: "JOB0KHTOWnGLuC"}}
  """
  @spec parse_key(binary) :: {:ok, %{queue: binary, family: binary, param: binary | nil}} | {:error, EmqId.gate()}
  def parse_key(key) do
    with {:ok, {queue, family, param}} <- Native.parse_key(binary!(key, "a key")) do
      {:ok, %{queue: queue, family: family, param: param}}
    end
  end

  @doc "The reserve's cross-queue key `{emq}:<name>`."
  def reserve(name), do: Native.reserve(binary!(name, "a name"))

  @doc "The reserve's version fence, `{emq}:version`."
  def version_key, do: Error.unwrap!(reserve("version"))

  @doc """
  `emq:{queue}:`, the prefix every key of a queue starts with (the bus's
  scripts append a type to it).

      iex> EmqId.Keyspace.queue_prefix("orders")
      {:ok, "emq:{orders}:"}
  """
  def queue_prefix(queue), do: Native.queue_prefix(binary!(queue, "a queue"))

  @doc "`emq:{queue}:job:`, the prefix the bus's scripts append job ids to."
  def job_prefix(queue), do: Native.job_prefix(binary!(queue, "a queue"))

  @doc "The bytes a family's keys spend before their parameter (`\"job:\"`, `\"g:\"`, … or a fixed type)."
  def prefix_bytes(queue, type), do: Native.prefix_bytes(binary!(queue, "a queue"), binary!(type, "a type"))

  @doc """
  The stream entry id of an `EVT` id, `<unix_ms>-<tail22>`.

      iex> EmqId.Keyspace.xadd_id("EVT000xY9Wvvcd")
      {:ok, "1704117200000-1620567"}
  """
  def xadd_id(id), do: Native.xadd_id(binary!(id, "an id"))

  @doc "The id (namespace `ns`) behind a stream entry id."
  def from_xadd_id(entry, ns \\ "EVT"),
    do: Native.from_xadd_id(binary!(entry, "an entry id"), binary!(ns, "a namespace"))

  for name <- [:key, :job_key, :parse_key, :reserve, :queue_prefix, :job_prefix, :prefix_bytes, :xadd_id] do
    arity = if name in [:key, :job_key, :prefix_bytes], do: 2, else: 1
    args = Macro.generate_arguments(arity, __MODULE__)
    @doc "`#{name}/#{arity}`, raising `EmqId.Error`."
    def unquote(:"#{name}!")(unquote_splicing(args)), do: Error.unwrap!(unquote(name)(unquote_splicing(args)))
  end

  @doc "`from_xadd_id/2`, raising `EmqId.Error`."
  def from_xadd_id!(entry, ns \\ "EVT"), do: Error.unwrap!(from_xadd_id(entry, ns))
end
