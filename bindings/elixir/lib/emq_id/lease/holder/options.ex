defmodule EmqId.Lease.Holder.Options do
  @moduledoc false
  # start_link's options, checked in the caller before anything is sent: a
  # value of the wrong type is an ArgumentError (as everywhere in the
  # binding); a count or terms the core refuses are the contract's :range.

  import EmqId.Host
  alias EmqId.{Error, Lease}

  @known [:client, :replicas, :terms, :name, :notify]

  @doc "`{:ok, %{client, replicas, terms, wait_ms, name, notify}}` or `{:error, %EmqId.Error{gate: :range}}`."
  def check(opts) when is_list(opts) do
    opts = Keyword.validate!(opts, @known)
    client = client!(Keyword.get(opts, :client))
    replicas = integer!(Keyword.get(opts, :replicas, Lease.replicas()), "replicas")
    terms = Keyword.get(opts, :terms, Lease.default_terms())

    with :ok <- replicas(replicas),
         {:ok, wait_ms} <- wait_ms(terms) do
      {:ok,
       %{
         client: client,
         replicas: replicas,
         terms: terms,
         wait_ms: wait_ms,
         name: name!(Keyword.get(opts, :name)),
         notify: notify!(Keyword.get(opts, :notify))
       }}
    end
  end

  def check(other), do: raise(ArgumentError, "the holder's options are a keyword list, got: #{inspect(other)}")

  defp client!({module, _conn} = client) when is_atom(module) do
    unless Code.ensure_loaded?(module) and function_exported?(module, :pipeline, 2) and
             function_exported?(module, :command, 2) do
      raise ArgumentError, "#{inspect(module)} is not an EmqId.Lease.Client (no command/2 and pipeline/2)"
    end

    client
  end

  defp client!(other),
    do: raise(ArgumentError, "client: is {module, conn}, e.g. {Redix, conn}, got: #{inspect(other)}")

  # WAIT's numreplicas, as EmqId.Lease.parse_wait/2 takes it.
  defp replicas(n) when u32?(n), do: :ok
  defp replicas(n), do: {:error, Error.exception({:range, "replicas must be in 0..2^32-1, got: #{n}"})}

  defp wait_ms(terms) do
    case Lease.wait_ms(terms) do
      {:ok, wait_ms} -> {:ok, wait_ms}
      {:error, gate} -> {:error, Error.exception({gate, "terms the core refuses: #{inspect(terms)}"})}
    end
  end

  defp name!(name) when is_atom(name), do: name
  defp name!({:global, _} = name), do: name
  defp name!({:via, module, _} = name) when is_atom(module), do: name

  defp name!(other),
    do: raise(ArgumentError, "name: is an atom, {:global, term} or {:via, module, term}, got: #{inspect(other)}")

  defp notify!(pid) when is_nil(pid) or is_pid(pid), do: pid
  defp notify!(other), do: raise(ArgumentError, "notify: is a pid, got: #{inspect(other)}")
end
