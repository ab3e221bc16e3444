# The Elixir adapter of `cargo xtask conformance` (conformance/PROTOCOL.md):
# JSON lines in, one answer per request out, each through the public EmqId
# API. JSON is Debian's erlang-jiffy (OTP 25 and Elixir 1.14 have no JSON
# module). It translates; the runner judges.
# A request's fields it does not read (a case's `source`) are ignored.
# Run from bindings/elixir: mix run --no-start ../../conformance/elixir/adapter.exs

defmodule Conformance.Elixir do
  alias EmqId.{Keyspace, Lease, LeasedMinter, Minter}
  alias EmqId.Lease.Keeper

  def main do
    IO.stream(:stdio, :line)
    |> Stream.reject(&(String.trim(&1) == ""))
    |> Enum.each(fn line ->
      request = :jiffy.decode(line, [:return_maps])
      answer = request |> translate() |> Map.put("req", request["req"])
      IO.write([:jiffy.encode(answer), "\n"])
    end)
  end

  # Byte inputs: `<name>_hex` (exact bytes) or `<name>` (a string's UTF-8).
  defp input(r, name) do
    case r["#{name}_hex"] do
      nil -> r[name]
      hex -> Base.decode16!(hex, case: :lower)
    end
  end

  defp decimal(r, name), do: String.to_integer(r[name])

  defp answer({:ok, value}, shape), do: %{"ok" => shape.(value)}
  defp answer({:error, gate}, _shape), do: %{"error" => %{"gate" => Atom.to_string(gate)}}

  defp translate(%{"op" => "decode"} = r) do
    answer(EmqId.decode(input(r, "text")), fn d ->
      {:ok, h} = EmqId.hash32(d.snowflake)
      %{"ns" => d.ns, "snowflake" => "#{d.snowflake}", "unix_ms" => "#{d.unix_ms}", "node" => d.node, "seq" => d.seq, "hash32" => h}
    end)
  end

  defp translate(%{"op" => "encode"} = r), do: answer(EmqId.encode(r["ns"], decimal(r, "snowflake")), &%{"text" => &1})
  defp translate(%{"op" => "min_for"} = r), do: answer(EmqId.min_for(decimal(r, "unix_ms")), &%{"snowflake" => "#{&1}"})

  defp translate(%{"op" => "mint"} = r) do
    answer(Minter.new(r["node"]), fn m ->
      steps =
        Enum.map(r["now_ms"], fn now ->
          case Minter.next_at(m, String.to_integer(now)) do
            {:ok, s} -> %{"snowflake" => "#{s}"}
            {:error, gate} -> %{"gate" => Atom.to_string(gate)}
          end
        end)

      %{"steps" => steps}
    end)
  end

  defp translate(%{"op" => "slot"} = r) do
    key = input(r, "key")
    %{"ok" => %{"slot" => Keyspace.slot(key), "hashtag_hex" => Base.encode16(Keyspace.hashtag(key), case: :lower)}}
  end

  defp translate(%{"op" => "key"} = r) do
    built = if Map.has_key?(r, "id"), do: Keyspace.key(r["queue"], r["kind"], r["id"]), else: Keyspace.key(r["queue"], r["kind"])
    answer(built, &%{"key" => &1})
  end

  defp translate(%{"op" => "parse_key"} = r) do
    answer(Keyspace.parse_key(r["key"]), fn p ->
      base = %{"queue" => p.queue, "family" => p.family}
      if p.param, do: Map.put(base, "param", p.param), else: base
    end)
  end

  defp translate(%{"op" => "reserve"} = r), do: answer(Keyspace.reserve(r["name"]), &%{"key" => &1})
  defp translate(%{"op" => "prefix_bytes"} = r), do: answer(Keyspace.prefix_bytes(r["queue"], r["type"]), &%{"bytes" => &1})
  defp translate(%{"op" => "queue_prefix"} = r), do: answer(Keyspace.queue_prefix(r["queue"]), &%{"key" => &1})
  defp translate(%{"op" => "job_prefix"} = r), do: answer(Keyspace.job_prefix(r["queue"]), &%{"key" => &1})
  defp translate(%{"op" => "xadd_id"} = r), do: answer(Keyspace.xadd_id(r["id"]), &%{"entry" => &1})
  defp translate(%{"op" => "from_xadd_id"} = r), do: answer(Keyspace.from_xadd_id(r["entry"], r["ns"]), &%{"id" => &1})

  # The lease ops (emq-lease/3). jiffy reads and writes JSON null as :null.
  defp translate(%{"op" => "lease_script"} = r) do
    case Enum.find(Lease.scripts(), &(&1.name == r["name"])) do
      nil -> %{"unsupported" => "no lease script named #{r["name"]}"}
      script -> %{"ok" => %{"text" => script.text}}
    end
  end

  defp translate(%{"op" => "lease_keys"}), do: %{"ok" => %{"lease_key" => Lease.key()}}

  defp translate(%{"op" => "parse_acquire"} = r) do
    answer(Lease.parse_acquire(r["node"], r["previous"]), &%{"node" => &1.node, "previous_mark" => null(&1.previous_mark)})
  end

  defp translate(%{"op" => "parse_acquire_error"} = r) do
    case Lease.parse_acquire_error(r["message"]) do
      nil -> %{"ok" => %{"refusal" => false}}
      error -> answer(error, nil)
    end
  end

  defp translate(%{"op" => "parse_renewal"} = r) do
    case Lease.parse_renewal(r["reply"]) do
      :ok -> %{"ok" => %{}}
      error -> answer(error, nil)
    end
  end

  defp translate(%{"op" => "lease_wait"} = r) do
    with {:ok, terms} <- Lease.terms(r["ttl_ms"], r["margin_ms"]),
         :ok <- Lease.parse_wait(r["reply"], r["replicas"]),
         {:ok, wait_ms} <- Lease.wait_ms(terms) do
      %{"ok" => %{"wait_ms" => wait_ms}}
    else
      error -> answer(error, nil)
    end
  end

  defp translate(%{"op" => "lease_start"} = r) do
    now = r["now_ms"]
    acquired = %{node: r["node"], previous_mark: if(r["previous_mark"] == :null, do: nil, else: r["previous_mark"])}

    with {:ok, terms} <- Lease.terms(r["ttl_ms"], r["margin_ms"]),
         {:ok, m} <- LeasedMinter.start(acquired, now, 0, terms),
         {:ok, s} <- LeasedMinter.next_at(m, now, 0),
         {:ok, mark} <- LeasedMinter.next_mark(m, now) do
      %{"ok" => %{"snowflake" => "#{s}", "fence_ms" => LeasedMinter.fence_ms(m), "next_mark" => mark}}
    else
      error -> answer(error, nil)
    end
  end

  defp translate(%{"op" => "lease_reply"} = r) do
    redirect =
      with %{} = d <- Lease.redirect(r["error"]),
           do: %{"ask" => d.ask, "slot" => d.slot, "host" => null(d.host), "port" => d.port}

    %{"ok" => %{"outcome" => Atom.to_string(Lease.read_error(r["error"], r["asked"])), "redirect" => null(redirect)}}
  end

  # A keeper run through the request's steps (times below 0 read as 0, as the Rust adapter reads them).
  defp translate(%{"op" => "lease_keeper"} = r) do
    with {:ok, terms} <- Lease.terms(r["ttl_ms"], r["margin_ms"]),
         {:ok, keeper} <- Keeper.start(terms, max(r["since"], 0)),
         {:ok, every} <- Lease.renew_every_ms(terms),
         {:ok, retry} <- Lease.retry_ms(terms) do
      steps = Enum.map(r["steps"], &keeper_step(keeper, &1))
      %{"ok" => %{"renew_every_ms" => every, "retry_ms" => retry, "steps" => steps}}
    else
      error -> answer(error, nil)
    end
  end

  defp translate(r), do: %{"unsupported" => "unknown op #{r["op"]}"}

  defp keeper_step(keeper, %{"outcome" => name} = step) do
    outcome = Enum.find(Lease.outcomes(), &(Atom.to_string(&1) == name)) || raise(ArgumentError, "no outcome #{name}")
    {action, after_ms} = Keeper.settle(keeper, outcome, max(step["sent"], 0), max(step["at"], 0))
    answer = %{"action" => Atom.to_string(action), "after_ms" => after_ms, "phase" => Atom.to_string(Keeper.phase(keeper))}

    case {action, Keeper.refusal(outcome)} do
      {:give_up, {:error, gate, _message}} -> Map.put(answer, "refusal", Atom.to_string(gate))
      {:give_up, nil} -> Map.put(answer, "refusal", :null)
      _ -> answer
    end
  end

  defp keeper_step(keeper, %{"release" => true}) do
    :ok = Keeper.release(keeper)
    %{"phase" => Atom.to_string(Keeper.phase(keeper))}
  end

  defp keeper_step(keeper, step) do
    next = Keeper.next(keeper, max(step["at"], 0))
    %{"next" => Atom.to_string(next), "phase" => Atom.to_string(Keeper.phase(keeper))}
  end

  defp null(nil), do: :null
  defp null(value), do: value
end

Conformance.Elixir.main()
