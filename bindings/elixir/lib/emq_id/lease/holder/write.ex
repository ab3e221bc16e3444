defmodule EmqId.Lease.Holder.Write do
  @moduledoc false
  # One lease write on the wire: a script by EVAL, followed by WAIT when
  # replicas are wanted, in one pipeline (so WAIT counts the replicas of this
  # write), and how its replies read (as the Rust crate's script.rs reads them).

  alias EmqId.{Error, Lease}

  defstruct [:script, :keys, :args, :replicas, :wait_ms, :sent, :mark]

  @typedoc """
  What became of a write: `{:refused, error}` (it did not run: NOREPLICAS;
  or every node is leased), `{:reply, reply, acknowledged}` (the script's
  reply; `acknowledged` is `:ok` or the core's `:node` refusal of too few
  replicas), or `{:fault, reason}` (a connection error, MOVED, a reply the
  protocol does not give: try again later).
  """
  @type answer :: {:refused, Exception.t()} | {:reply, term, :ok | Exception.t()} | {:fault, term}

  @doc "A write of `script` (`:acquire`, `:renew`, `:release`), sent now on the monotonic clock."
  def new(script, keys, args, replicas, wait_ms, mark \\ nil) do
    %__MODULE__{
      script: script,
      keys: keys,
      args: args,
      replicas: replicas,
      wait_ms: wait_ms,
      mark: mark,
      sent: EmqId.LeasedMinter.monotonic_ms()
    }
  end

  @doc "The pipeline's commands, every argument a binary."
  def commands(%__MODULE__{} = w) do
    eval = ["EVAL", Lease.script(w.script).text, length(w.keys)] ++ w.keys ++ w.args
    wait = ["WAIT", w.replicas, w.wait_ms]
    commands = if w.replicas > 0, do: [eval, wait], else: [eval]
    Enum.map(commands, fn command -> Enum.map(command, &to_string/1) end)
  end

  @doc "Sends the write through `{module, conn}` and reads its replies."
  def send(%__MODULE__{} = w, {module, conn}) do
    result =
      try do
        module.pipeline(conn, commands(w))
      catch
        # A client that exits (a dead connection process) is a fault like any other.
        :exit, reason -> {:error, {:exit, reason}}
      end

    read(w, result)
  end

  @doc "The replies of one write, read."
  @spec read(%__MODULE__{}, {:ok, [term]} | {:error, term}) :: answer
  def read(_w, {:error, reason}), do: {:fault, reason}
  def read(_w, {:ok, []}), do: {:fault, :no_reply}

  def read(w, {:ok, [reply | _]}) when is_exception(reply) do
    message = Exception.message(reply)

    cond do
      # min-replicas-to-write refused the script before it ran: no write happened.
      String.contains?(message, "NOREPLICAS") ->
        {:error, gate} = Lease.parse_wait(0, max(w.replicas, 1))
        {:refused, Error.exception({gate, "#{w.script} did not run: #{message}"})}

      Lease.parse_acquire_error(message) == {:error, :node} ->
        {:refused, Error.exception({:node, "every node is leased"})}

      true ->
        {:fault, reply}
    end
  end

  def read(%__MODULE__{replicas: 0}, {:ok, [reply | _]}), do: {:reply, reply, :ok}

  def read(w, {:ok, [reply, acknowledged | _]}) when is_integer(acknowledged) do
    case Lease.parse_wait(acknowledged, w.replicas) do
      :ok ->
        {:reply, reply, :ok}

      {:error, :node} ->
        detail = "#{w.script} acknowledged by #{acknowledged} of #{w.replicas} replicas"
        {:reply, reply, Error.exception({:node, detail})}

      {:error, _} ->
        {:fault, {:unexpected_reply, "WAIT", acknowledged}}
    end
  end

  def read(_w, {:ok, [_reply | wait]}), do: {:fault, {:unexpected_reply, "WAIT", wait}}
end
