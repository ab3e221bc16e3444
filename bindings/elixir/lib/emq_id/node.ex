defmodule EmqId.Node do
  @moduledoc """
  The node of the process-wide minter behind `EmqId.mint/1`: the
  application's (`config :emq_id, node: 7`), else `EMQ_NODE`, else a drawn
  node. Taking it takes its host-local claim (SPEC.md §5.1): the VM is one
  process, so one node, one mint state, however many Erlang processes mint.
  """
  require Logger
  import EmqId.Host, only: [u64?: 1]
  alias EmqId.Native

  @doc """
  The node and where it came from (`:set` by the application's config,
  `:env`, or `:fallback`), taking it on first use; `{:error, gate}` when it
  cannot be taken (`:range` for a bad `EMQ_NODE` or configured node, `:node`
  when another live process of this host holds it).
  """
  @spec process_node() :: {:ok, {non_neg_integer, :set | :env | :fallback}} | {:error, EmqId.gate()}
  def process_node do
    with :ok <- ensure(), do: strip(Native.process_node())
  end

  @doc false
  def ensure do
    case :persistent_term.get({__MODULE__, :taken}, false) do
      true -> :ok
      false -> take()
    end
  end

  defp take do
    result =
      case Application.get_env(:emq_id, :node) do
        nil -> Native.process_node()
        # The core decides the node's range (above EmqId.max_node/0 is `:range`).
        node when u64?(node) -> Native.set_process_node(node)
        node when is_integer(node) -> {:error, :range, "config :emq_id, node: #{node}"}
        other -> raise ArgumentError, "config :emq_id, node: must be an integer, got: #{inspect(other)}"
      end

    case result do
      {:ok, {node, source}} ->
        if source == :fallback do
          Logger.warning(
            "emq_id: neither config :emq_id, node: nor EMQ_NODE is set; drew node #{node}, " <>
              "which no other live process of this host holds: ids may still collide with another host's"
          )
        end

        :persistent_term.put({__MODULE__, :taken}, true)
        :ok

      # Not remembered: a node held by another process may be free later. Each
      # try is a dirty I/O call; the caller gets the gate (the message is the
      # process_node/0 NIF's third element, for whoever wants it logged).
      {:error, gate, _message} ->
        {:error, gate}
    end
  end

  defp strip({:error, gate, _message}), do: {:error, gate}
  defp strip(ok), do: ok
end
