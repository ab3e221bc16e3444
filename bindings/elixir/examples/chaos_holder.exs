# A holder of `cargo xtask chaos`'s fleet, in Elixir (xtask/src/runtimes/valkey/chaos/holder.rs says
# the contract): holds a lease with EmqId.Lease.Holder over the RESP client of test/support and mints
# two ids a millisecond into FILE until its stdin closes, then releases and prints its stats as one
# JSON line.
#
#     elixir -pa _build/dev/lib/emq_id/ebin examples/chaos_holder.exs \
#       --seeds HOST:PORT[,HOST:PORT...] --replicas N --ttl MS --margin MS --out FILE
#
# Each record is 24 bytes, little-endian: the snowflake, the unix ms it was minted at, the ordinal of
# the lease that minted it, 4 bytes of padding.

unless Code.ensure_loaded?(EmqId.Test.Resp), do: Code.require_file("../test/support/resp.ex", __DIR__)

defmodule ChaosHolder do
  alias EmqId.Lease.Holder

  @per_tick 2
  @flush_ms 20

  def main(argv) do
    {opts, _, []} =
      OptionParser.parse(argv,
        strict: [seeds: :string, replicas: :integer, ttl: :integer, margin: :integer, out: :string]
      )

    {:ok, terms} = EmqId.Lease.terms(Keyword.fetch!(opts, :ttl), Keyword.fetch!(opts, :margin))
    # A node that does not answer within a second is treated as down: the client tries the next seed.
    {:ok, conn} = EmqId.Test.Resp.start_link(seeds(Keyword.fetch!(opts, :seeds)), read_timeout: 1_000)
    watch_stdin(self())
    out = File.open!(Keyword.fetch!(opts, :out), [:write, :binary, :raw])
    start = [client: {EmqId.Test.Resp, conn}, replicas: Keyword.fetch!(opts, :replicas), terms: terms]
    {:ok, retry_ms} = EmqId.Lease.retry_ms(terms)

    case join(start, retry_ms) do
      {:ok, holder} ->
        mint(holder, out, [], now())
        stats = Holder.stats(holder)
        Holder.release(holder)
        IO.puts(~s({"taken":#{stats.taken},"lost":#{stats.lost},"longest_unleased_ms":#{stats.longest_unleased_ms}}))

      {:error, reason} ->
        IO.puts(:stderr, "chaos_holder: no lease before the end: #{inspect(reason)}")
        System.halt(1)
    end
  end

  defp seeds(text) do
    for seed <- String.split(text, ",", trim: true) do
      [_, host, port] = Regex.run(~r/^(.+):(\d+)$/, String.trim(seed)) || raise(ArgumentError, "--seeds HOST:PORT,...")
      {host, String.to_integer(port)}
    end
  end

  # Joining the fleet: the first acquire is refused while no node is free or no replica acknowledges
  # it, or when the cluster fails over for longer than a TTL; a holder keeps asking until its stdin
  # closes.
  defp join(start, retry_ms) do
    case Holder.start_link(start) do
      {:ok, holder} ->
        {:ok, holder}

      {:error, reason} ->
        if closed?() do
          {:error, reason}
        else
          Process.sleep(retry_ms)
          join(start, retry_ms)
        end
    end
  end

  defp mint(holder, out, buffer, flushed) do
    buffer = Enum.reduce_while(1..@per_tick, buffer, fn _, acc -> record(holder, acc) end)

    {buffer, flushed} = if now() - flushed >= @flush_ms, do: {flush(out, buffer), now()}, else: {buffer, flushed}

    if closed?() do
      flush(out, buffer)
      File.close(out)
    else
      Process.sleep(1)
      mint(holder, out, buffer, flushed)
    end
  end

  # Minting stops silently while no lease is held (or its fence is closed).
  defp record(holder, buffer) do
    case Holder.next_minted(holder) do
      {:ok, {snowflake, ordinal}} ->
        ms = System.os_time(:millisecond)
        {:cont, [buffer | <<snowflake::little-64, ms::little-64, ordinal::little-32, 0::32>>]}

      {:error, :node} ->
        {:halt, buffer}
    end
  end

  defp flush(out, buffer) do
    :ok = :file.write(out, buffer)
    []
  end

  defp now, do: System.monotonic_time(:millisecond)

  # Stdin is read to its end by a process of its own, which then tells the minting loop.
  defp watch_stdin(main) do
    spawn_link(fn ->
      read_to_eof()
      send(main, :stdin_closed)
    end)
  end

  defp read_to_eof do
    case IO.binread(:stdio, 4096) do
      data when is_binary(data) -> read_to_eof()
      _eof_or_error -> :ok
    end
  end

  defp closed? do
    receive do
      :stdin_closed -> true
    after
      0 -> false
    end
  end
end

ChaosHolder.main(System.argv())
