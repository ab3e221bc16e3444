defmodule EmqId.Host do
  @moduledoc false
  # Host values the core's types cannot hold: an Elixir integer has no upper
  # bound, the core's snowflakes are u64 and its instants i64. An integer
  # outside them is the contract's `range` (never wrapped, never an
  # ArgumentError); a value of another type is an ArgumentError, as Elixir's
  # own functions raise.

  defguard u64?(n) when is_integer(n) and n >= 0 and n <= 0xFFFF_FFFF_FFFF_FFFF
  defguard u32?(n) when is_integer(n) and n >= 0 and n <= 0xFFFF_FFFF
  defguard i64?(n) when is_integer(n) and n >= -0x8000_0000_0000_0000 and n <= 0x7FFF_FFFF_FFFF_FFFF

  def integer!(n, _what) when is_integer(n), do: n
  def integer!(other, what), do: raise(ArgumentError, "#{what} must be an integer, got: #{inspect(other)}")

  @doc "The answer for an integer outside the core's type: the contract's `range`."
  def range(_integer), do: {:error, :range}

  def binary!(b, _what) when is_binary(b), do: b
  def binary!(other, what), do: raise(ArgumentError, "#{what} must be a binary, got: #{inspect(other)}")
end
