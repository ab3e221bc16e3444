defmodule EmqId.Minter do
  @moduledoc """
  A minter for one node (0..`EmqId.max_node/0`): a NIF resource over the
  core's lock-free minter, safe to share between Erlang processes. Ids from one minter never
  repeat and never decrease. Two minters of one node mint the same ids: give
  each its own node (`EmqId.mint/1` holds the VM's node on the host for you).

      iex> {:ok, m} = EmqId.Minter.new(7)
      iex> {:ok, s} = EmqId.Minter.next_at(m, 1769526697641)
      iex> {EmqId.Minter.node(m), s}
      {7, 274557032793665536}
  """
  import EmqId.Host
  alias EmqId.{Error, Native}

  @opaque t :: reference()

  @doc "A fresh minter for `node`; `{:error, :range}` above `EmqId.max_node/0` (the core decides)."
  @spec new(integer) :: {:ok, t} | {:error, :range}
  def new(node) when u64?(node), do: Native.minter_new(node)
  def new(node), do: range(integer!(node, "a node"))

  @doc "The node a minter stamps."
  def node(minter), do: Native.minter_node(minter)

  @doc "The next snowflake, with the system clock."
  def next(minter), do: Native.minter_next(minter)

  @doc "The next snowflake with a clock reading (Unix ms): the contract's pure step, applied atomically."
  def next_at(minter, now_ms) when i64?(now_ms), do: Native.minter_next_at(minter, now_ms)
  def next_at(_minter, now_ms), do: range(integer!(now_ms, "an instant"))

  @max_many 1_000_000

  @doc """
  `count` snowflakes (at most #{@max_many}) with one clock reading, in one call
  on a dirty CPU scheduler. A larger batch would hold that scheduler and the
  caller's heap for long, and run the minter far ahead of the clock: split it.
  """
  def next_many(minter, count) when is_integer(count) and count >= 0 and count <= @max_many,
    do: Native.minter_next_many(minter, count)

  def next_many(_minter, count),
    do: raise(ArgumentError, "a count is an integer in 0..#{@max_many}, got: #{inspect(count)}")

  @doc "The contract's pure mint step: `{:ok, {state', snowflake}}`."
  def next_state(state, node, now_ms) when u64?(state) and u64?(node) and i64?(now_ms),
    do: Native.mint_step(state, node, now_ms)

  def next_state(state, node, now_ms) do
    integer!(state, "a state") && integer!(node, "a node") && integer!(now_ms, "an instant")
    {:error, :range}
  end

  for name <- [:new, :next] do
    @doc "`#{name}/1`, raising `EmqId.Error`."
    def unquote(:"#{name}!")(arg), do: Error.unwrap!(unquote(name)(arg))
  end
end
