defmodule EmqId.SelfCheck do
  @moduledoc """
  The contract's self-check (SPEC.md §8) through this binding's public API.

  The core hands out its self-check vectors as text, one check per line
  (`vectors/0`); `run/2` answers every line with the public functions (so
  their conversions of strings, integers and errors are checked too, not only
  the NIF) and names the first line answered differently. `EmqId` runs it
  when it loads and refuses to load on a mismatch; the application runs it
  again when it starts.

      iex> EmqId.SelfCheck.run(EmqId.SelfCheck.vectors())
      :ok
      iex> EmqId.SelfCheck.run("slot 123456789 12738")
      {:error, "slot 123456789 12738", 12739}
  """

  @typedoc """
  The functions a check calls, by name. `EmqId` passes captures of its own
  functions: while its `@on_load` runs, a remote call into `EmqId` is not yet
  possible, a capture made inside it is.
  """
  @type api :: %{atom => function}

  @doc "The core's self-check vectors (`emq_id::SELF_CHECK_VECTORS`)."
  @spec vectors() :: String.t()
  def vectors, do: EmqId.Native.self_check_vectors()

  @doc """
  Runs every line of `text` through `api` (by default `EmqId`'s public
  functions): `:ok`, or `{:error, line, answer}` for the first line this
  build answers differently (`answer` is what the API said; an exception is
  `{:raised, exception}`, a line of a form this binding does not know is
  `:unknown_line`). Text with no line is refused too: it checks nothing.
  """
  @spec run(String.t(), api) :: :ok | {:error, String.t(), term}
  def run(text, api \\ EmqId.self_check_api()) do
    case String.split(text, "\n", trim: true) do
      [] -> {:error, "", :no_lines}
      lines -> Enum.find_value(lines, :ok, &mismatch(&1, api))
    end
  end

  defp mismatch(line, api) do
    {expected, answer} =
      try do
        check(String.split(line, " "), api)
      rescue
        e -> {:an_answer, {:raised, e}}
      end

    if answer != expected, do: {:error, line, answer}
  end

  # Each line form (the doc comment of SELF_CHECK_VECTORS in the core's
  # check.rs) as {expected, answer}. A line form the core adds falls through
  # to the last clause and fails until it is taught here.

  defp check(["decode", id, ns, s, unix_ms, node, seq, hash32], api) do
    s = int(s)
    fields = %{ns: ns, snowflake: s, unix_ms: int(unix_ms), node: int(node), seq: int(seq)}
    expected = {{:ok, fields}, {:ok, int(unix_ms)}, {:ok, int(hash32)}, true, {:ok, ns}, {:ok, :eq}}

    answer =
      {api.decode.(id), api.unix_ms.(s), api.hash32.(s), api.valid?.(id), api.namespace.(id), api.compare.(id, id)}

    {expected, answer}
  end

  defp check(["encode", ns, s, id], api), do: {{:ok, id}, api.encode.(ns, int(s))}

  defp check(["reject", input, gate], api),
    do: {{{:error, atom(gate)}, false}, {api.parse.(input), api.valid?.(input)}}

  defp check(["encode_reject", ns, s, gate], api), do: {{:error, atom(gate)}, api.encode.(ns, int(s))}
  defp check(["min_for", unix_ms, s], api), do: {{:ok, int(s)}, api.min_for.(int(unix_ms))}

  defp check(["mint", node, t1, t2, s1, s2], api) do
    answer =
      with {:ok, minter} <- api.minter_new.(int(node)) do
        [api.next_at.(minter, int(t1)), api.next_at.(minter, int(t2))]
      end

    {[{:ok, int(s1)}, {:ok, int(s2)}], answer}
  end

  defp check(["slot", key, slot], api), do: {int(slot), api.slot.(key)}
  defp check(["hashtag", key, tag], api), do: {tag, api.hashtag.(key)}
  defp check(["key", queue, type, id, key], api), do: {{:ok, key}, build_key(api, queue, type, id)}
  defp check(["key_reject", queue, type, id, gate], api), do: {{:error, atom(gate)}, build_key(api, queue, type, id)}
  defp check(["xadd_id", id, entry], api), do: {{:ok, entry}, api.xadd_id.(id)}
  defp check(_words, _api), do: {:known_line, :unknown_line}

  defp build_key(api, queue, type, "-"), do: api.key.(queue, type)
  defp build_key(api, queue, type, id), do: api.key_with_id.(queue, type, id)

  defp int(word), do: String.to_integer(word)

  # A gate as the vectors spell it, as the atom the API answers (SPEC.md §9).
  # The words come from the core's static text, so the atoms are bounded.
  defp atom(gate), do: String.to_atom(gate)
end
