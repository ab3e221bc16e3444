defmodule EmqId.LeasedMinter do
  @moduledoc """
  A minter on a node leased from Valkey (`EmqId.Lease`): a NIF resource over
  the core's lock-free `LeasedMinter`, safe to share between Erlang
  processes (the renewer updates it while others mint).

    * **The hand-over.** It starts after the node's previous mark + 1 ms,
      even when this host's clock is behind: its first id sorts after every
      id of every previous owner.
    * **The mark.** It never mints an id past the mark it last stored in
      Valkey; a burst far ahead of the clock is refused with `{:error, :node}`
      until a renewal raises the mark (`renewed/3`).
    * **The fence.** It refuses with `{:error, :node}` from `sent + ttl - margin`
      on the **monotonic** clock, `sent` being when the acquire or the last
      accepted renewal was sent, so a wall clock set back cannot keep it
      minting past its lease.

  Two clocks, then: ids carry the wall clock (unix ms, `System.os_time/1`),
  the fence runs on the monotonic one. Read the monotonic clock with
  `monotonic_ms/0` — the VM's monotonic time, counted from the VM's start so
  that it is never negative — and pass readings of it alone to `start/4`,
  `next_at/3` and `renewed/3` (`next/1` reads both clocks itself).

      iex> {:ok, acquired} = EmqId.Lease.parse_acquire(3, 1769526732641)
      iex> {:ok, m} = EmqId.LeasedMinter.start(acquired, 1769526697641, 0, EmqId.Lease.default_terms())
      iex> {:ok, s} = EmqId.LeasedMinter.next_at(m, 1769526697641, 0)
      iex> {s, EmqId.decode!(EmqId.encode!("JOB", s)).unix_ms}
      {274557179598483456, 1769526732642}
      iex> EmqId.LeasedMinter.next_at(m, 1769526697641, 25_000)
      {:error, :node}
  """
  import EmqId.Host
  alias EmqId.{Error, Native}

  @opaque t :: reference()

  @doc """
  The minter of a lease acquired (`EmqId.Lease.parse_acquire/2`) with
  `now_ms` as the script's `now`, the acquire sent at monotonic
  `sent_mono_ms`, on `terms` (the TTL the script was sent). It starts at
  `max(now_ms, previous_mark + 1)` and may mint until `sent_mono_ms + ttl -
  margin` unless renewed.

  The node, mark and terms go through the core's readers again: a node
  outside the lease range, a negative mark or terms the core refuses are
  `{:error, :range}`, as is a lease whose mark would pass the contract's
  time limit.
  """
  @spec start(EmqId.Lease.acquired(), integer, integer, EmqId.Lease.terms()) :: {:ok, t} | {:error, :range}
  def start(%{node: node, previous_mark: previous}, now_ms, sent_mono_ms, %{ttl_ms: ttl_ms, margin_ms: margin_ms})
      when i64?(node) and (is_nil(previous) or (i64?(previous) and previous >= 0)) and i64?(now_ms) and
             u64?(sent_mono_ms) and u64?(ttl_ms) and u64?(margin_ms),
      do: Native.leased_start(node, previous || -1, now_ms, sent_mono_ms, ttl_ms, margin_ms)

  def start(%{node: node, previous_mark: previous}, now_ms, sent_mono_ms, %{ttl_ms: ttl_ms, margin_ms: margin_ms}) do
    integer!(node, "a node")
    unless is_nil(previous), do: integer!(previous, "a mark")
    integer!(now_ms, "an instant") && integer!(sent_mono_ms, "a monotonic reading")
    integer!(ttl_ms, "a TTL") && range(integer!(margin_ms, "a margin"))
  end

  def start(acquired, _now_ms, _sent_mono_ms, terms) do
    raise ArgumentError,
          "start/4 takes %{node:, previous_mark:} (EmqId.Lease.parse_acquire/2) and " <>
            "%{ttl_ms:, margin_ms:} (EmqId.Lease.terms/2), got: #{inspect(acquired)}, #{inspect(terms)}"
  end

  @doc """
  The VM's monotonic clock in ms since the VM started (never negative, never
  stepped): the clock of the fence.
  """
  @spec monotonic_ms() :: non_neg_integer
  def monotonic_ms do
    System.convert_time_unit(System.monotonic_time() - :erlang.system_info(:start_time), :native, :millisecond)
  end

  @doc "The leased node."
  @spec node(t) :: non_neg_integer
  def node(minter), do: Native.leased_node(minter)

  @doc "The minter's terms."
  @spec terms(t) :: EmqId.Lease.terms()
  def terms(minter), do: terms_of(Native.leased_terms(minter))

  @doc """
  The next snowflake with the system clock and `monotonic_ms/0`;
  `{:error, :node}` once the fence has closed or at the mark.
  """
  @spec next(t) :: {:ok, EmqId.snowflake()} | {:error, EmqId.gate()}
  def next(minter), do: Native.leased_next_at(minter, System.os_time(:millisecond), monotonic_ms())

  @doc "`next/1`, raising `EmqId.Error`."
  def next!(minter), do: Error.unwrap!(next(minter))

  @doc """
  The next snowflake with a wall-clock reading `now_ms` (unix ms) at
  monotonic `mono_ms`: the contract's step, refused with `{:error, :node}`
  when `mono_ms` has reached the fence or the id would pass the mark.
  """
  @spec next_at(t, integer, integer) :: {:ok, EmqId.snowflake()} | {:error, EmqId.gate()}
  def next_at(minter, now_ms, mono_ms) when i64?(now_ms) and u64?(mono_ms),
    do: Native.leased_next_at(minter, now_ms, mono_ms)

  def next_at(_minter, now_ms, mono_ms),
    do: integer!(now_ms, "an instant") && range(integer!(mono_ms, "a monotonic reading"))

  @doc """
  The mark to send with `renew` at `now_ms`: the later of the clock and the
  last minted ms, plus the TTL; never below the mark already stored.
  """
  @spec next_mark(t, integer) :: {:ok, non_neg_integer} | {:error, :range}
  def next_mark(minter, now_ms) when i64?(now_ms), do: {:ok, Native.leased_next_mark(minter, now_ms)}
  def next_mark(_minter, now_ms), do: range(integer!(now_ms, "an instant"))

  @doc """
  Records a renewal Valkey accepted (`1`): sent at monotonic `sent_mono_ms`,
  carrying `mark`. The fence moves to `sent_mono_ms + ttl - margin` and the
  mark up to `mark` (neither ever moves back).
  """
  @spec renewed(t, integer, integer) :: :ok | {:error, :range}
  def renewed(minter, sent_mono_ms, mark) when u64?(sent_mono_ms) and u64?(mark),
    do: Native.leased_renewed(minter, sent_mono_ms, mark)

  def renewed(_minter, sent_mono_ms, mark),
    do: integer!(sent_mono_ms, "a monotonic reading") && range(integer!(mark, "a mark"))

  @doc """
  Closes the fence now (a renewal answered `0`, or before `release`):
  minting is `{:error, :node}` from here on, for good: a `renewed/3`
  recorded after it does not reopen the fence, and a mint racing it either
  lands before the high water a release stores or is refused.
  """
  @spec stop(t) :: :ok
  def stop(minter), do: Native.leased_stop(minter)

  @doc """
  The last ms this minter minted in (before its first id: one before its
  start): what `release` stores as the node's mark.
  """
  @spec high_water(t) :: non_neg_integer
  def high_water(minter), do: Native.leased_high_water(minter)

  @doc "The monotonic ms from which minting is refused (`0` once stopped)."
  @spec fence_ms(t) :: non_neg_integer
  def fence_ms(minter), do: Native.leased_fence_ms(minter)
end
