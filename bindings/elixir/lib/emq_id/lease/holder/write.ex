defmodule EmqId.Lease.Holder.Write do
  @moduledoc false
  # One lease write on the wire: its script by EVAL, then WAIT when replicas
  # are wanted, pipelined on one connection so that WAIT counts the replicas
  # of this very write; after an ASK, the same write with ASKING in front,
  # pipelined on one connection to the node ASK named (the client's
  # pipeline_at/4). What a write came to is the core's reading of its replies
  # (EmqId.Lease.read_error/2, write_outcome/2): this module only moves bytes.

  alias EmqId.{Error, Lease}

  defstruct [:script, :args, :replicas, :wait_ms, :sent, :mark, :lease, :unsendable]

  @typedoc """
  What a write came to: the core's `outcome`; the error reply's `text` (an
  outcome read from one); for an acquire that ran, the node `acquired`; for an
  unacknowledged write, `WAIT`'s `refusal`; for a fault, its `reason` (the
  client's error, the reply the protocol does not give).
  """
  @type came :: %{
          outcome: Lease.outcome(),
          text: String.t() | nil,
          acquired: Lease.acquired() | nil,
          refusal: Exception.t() | nil,
          reason: term
        }

  @doc """
  A write of `script` (`:acquire`, `:renew`, `:release`) with `args`, sent now
  on the monotonic clock. Options: `mark:` (a renewal's), `lease:` (the lease
  it renews or releases), `unsendable:` (why it cannot be sent: it is a fault
  without a byte on the wire).
  """
  def new(script, args, replicas, wait_ms, opts \\ []) do
    %__MODULE__{
      script: script,
      args: args,
      replicas: replicas,
      wait_ms: wait_ms,
      mark: opts[:mark],
      lease: opts[:lease],
      unsendable: opts[:unsendable],
      sent: EmqId.LeasedMinter.monotonic_ms()
    }
  end

  @doc "The pipeline's commands, every argument a binary: EVAL of the script on the reserve's key, then WAIT."
  def commands(%__MODULE__{} = w) do
    eval = ["EVAL", Lease.script(w.script).text, 1, Lease.key()] ++ w.args
    wait = ["WAIT", w.replicas, w.wait_ms]
    commands = if w.replicas > 0, do: [eval, wait], else: [eval]
    Enum.map(commands, fn command -> Enum.map(command, &to_string/1) end)
  end

  @doc "Sends the write through `{module, conn}` and reads what it came to."
  @spec send(%__MODULE__{}, {module, term}) :: came
  def send(%__MODULE__{unsendable: nil} = w, {module, conn}),
    do: read(w, call(fn -> module.pipeline(conn, commands(w)) end), false)

  def send(%__MODULE__{unsendable: reason}, _client), do: fault(reason)

  @doc """
  Follows the `ASK` reply `text` to the write: `ASKING`, the script and its
  `WAIT`, pipelined on one connection to the node it names (the client's
  `pipeline_at/4`), read as a write that was asked. A refused `ASKING` (the
  script refused too) is read by the core as a refusal after `ASKING`: one
  it reads as not run (`LOADING`: the node not ready yet) is `:not_run`,
  tried again; any other is a fault. A client module without
  `pipeline_at/4` (Redix) cannot reach the node: the write did not run
  (`:not_run`, the `ASK` its text), and is sent again where it was, until
  the migration ends.
  """
  @spec follow(%__MODULE__{}, {module, term}, String.t()) :: came
  def follow(w, {module, conn}, text) do
    %{host: host, port: port} = Lease.redirect(text)

    if function_exported?(module, :pipeline_at, 4) do
      case call(fn -> module.pipeline_at(conn, host, port, [["ASKING"] | commands(w)]) end) do
        {:ok, [asking | replies]} when is_exception(asking) -> refused_asking(w, asking, replies)
        {:ok, [_asking | replies]} -> read(w, {:ok, replies}, true)
        other -> read(w, other, true)
      end
    else
      %{came(:not_run) | text: text}
    end
  end

  # ASKING refused: the script ran anyway (the slot is the node's now), or
  # the refusal is ASKING's, read as the core reads one after ASKING.
  defp refused_asking(w, _asking, [reply | _] = replies) when not is_exception(reply), do: read(w, {:ok, replies}, true)

  defp refused_asking(_w, asking, _replies) do
    text = Exception.message(asking)

    case Lease.read_error(text, true) do
      :not_run -> %{came(:not_run) | text: text, reason: asking}
      _ -> fault({:asking, text})
    end
  end

  @doc "The write sent again: the same write, sent now on the monotonic clock."
  def again(w), do: %{w | sent: EmqId.LeasedMinter.monotonic_ms()}

  # A client that exits (a dead connection process) is a fault like any other.
  defp call(pipeline) do
    pipeline.()
  catch
    :exit, reason -> {:error, {:exit, reason}}
  end

  @doc "The replies of one write (`asked`: sent after `ASKING`), read."
  @spec read(%__MODULE__{}, {:ok, [term]} | {:error, term}, boolean) :: came
  def read(_w, {:error, reason}, _asked), do: fault(reason)
  def read(_w, {:ok, []}, _asked), do: fault(:no_reply)

  def read(_w, {:ok, [reply | _]}, asked) when is_exception(reply) do
    text = Exception.message(reply)
    %{came(Lease.read_error(text, asked)) | text: text, reason: reply}
  end

  def read(w, {:ok, [reply | wait]}, _asked) do
    with {:ok, held, acquired} <- held(w, reply),
         {:ok, refusal} <- acknowledged(w, wait) do
      %{came(Lease.write_outcome(held, refusal == nil)) | acquired: acquired, refusal: refusal}
    end
  end

  # What the script answered: {:ok, held, acquired | nil}, or a fault.
  defp held(%{script: :acquire}, [node, previous] = reply) when is_integer(node) and is_integer(previous) do
    case Lease.parse_acquire(node, previous) do
      {:ok, acquired} -> {:ok, true, acquired}
      {:error, gate} -> fault({:unexpected_reply, "acquire", reply, gate})
    end
  end

  defp held(%{script: script}, reply) when script != :acquire and is_integer(reply) do
    case Lease.parse_renewal(reply) do
      :ok -> {:ok, true, nil}
      {:error, :node} -> {:ok, false, nil}
      {:error, _} -> fault({:unexpected_reply, Atom.to_string(script), reply})
    end
  end

  defp held(%{script: script}, reply), do: fault({:unexpected_reply, Atom.to_string(script), reply})

  # WAIT's reply: {:ok, nil} acknowledged (or none wanted), {:ok, refusal} too few replicas, or a fault.
  defp acknowledged(%{replicas: 0}, _wait), do: {:ok, nil}

  defp acknowledged(w, [acknowledged | _]) when is_integer(acknowledged) do
    case Lease.parse_wait(acknowledged, w.replicas) do
      :ok ->
        {:ok, nil}

      {:error, :node} ->
        {:ok, Error.exception({:node, "#{w.script} acknowledged by #{acknowledged} of #{w.replicas} replicas"})}

      {:error, _} ->
        fault({:unexpected_reply, "WAIT", acknowledged})
    end
  end

  defp acknowledged(_w, wait), do: fault({:unexpected_reply, "WAIT", wait})

  defp came(outcome), do: %{outcome: outcome, text: nil, acquired: nil, refusal: nil, reason: nil}
  defp fault(reason), do: %{came(:fault) | reason: reason}
end
