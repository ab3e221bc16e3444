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

  @doc """
  `fun.(ttl_ms, margin_ms)` of terms (`%{ttl_ms:, margin_ms:}`) whose numbers
  fit the core's type; `{:error, :range}` for an integer outside it, an
  ArgumentError for anything else.
  """
  def with_terms(%{ttl_ms: ttl_ms, margin_ms: margin_ms}, fun) when u64?(ttl_ms) and u64?(margin_ms),
    do: fun.(ttl_ms, margin_ms)

  def with_terms(%{ttl_ms: ttl_ms, margin_ms: margin_ms}, _fun),
    do: integer!(ttl_ms, "a TTL") && range(integer!(margin_ms, "a margin"))

  def with_terms(other, _fun),
    do: raise(ArgumentError, "terms are a map with :ttl_ms and :margin_ms, got: #{inspect(other)}")

  @doc "Terms as the NIF hands them back, `{ttl_ms, margin_ms}`, as Elixir holds them."
  def terms_of({ttl_ms, margin_ms}), do: %{ttl_ms: ttl_ms, margin_ms: margin_ms}

  def binary!(b, _what) when is_binary(b), do: b
  def binary!(other, what), do: raise(ArgumentError, "#{what} must be a binary, got: #{inspect(other)}")
end
