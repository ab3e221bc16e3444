defmodule EmqId.Lease.Holder.Stats do
  @moduledoc false
  # Leases taken (acknowledged) and lost, and the time without one: since
  # when (monotonic ms; nil while minting) and the longest such stretch.

  defstruct taken: 0, lost: 0, unleased_since: nil, longest: 0

  def taken(s), do: %{leased_again(s) | taken: s.taken + 1}
  def lost(s), do: %{unleased(s) | lost: s.lost + 1}

  def unleased(%{unleased_since: nil} = s), do: %{s | unleased_since: EmqId.LeasedMinter.monotonic_ms()}
  def unleased(s), do: s

  def leased_again(%{unleased_since: nil} = s), do: s

  def leased_again(s),
    do: %{s | longest: max(s.longest, EmqId.LeasedMinter.monotonic_ms() - s.unleased_since), unleased_since: nil}

  @doc "What `EmqId.Lease.Holder.stats/1` answers."
  def snapshot(s) do
    now = if s.unleased_since, do: EmqId.LeasedMinter.monotonic_ms() - s.unleased_since
    %{taken: s.taken, lost: s.lost, unleased_ms: now, longest_unleased_ms: max(s.longest, now || 0)}
  end
end
