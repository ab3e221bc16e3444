defmodule EmqId.Test.Resp do
  @moduledoc """
  A minimal RESP2 client over `:gen_tcp`, an `EmqId.Lease.Client` for the
  holder's tests and the chaos holder (hex.pm, hence Redix, is out of reach
  here). One process, one socket, to one of a list of seeds:

    * a pipeline whose first reply is `MOVED slot host:port` is sent again,
      whole, to that node (so `WAIT` follows its script), and the client
      stays there; a `READONLY` one (a primary turned replica) drops the
      connection, the replies go back as they are;
    * a connection error closes the socket and is `{:error, reason}`; the
      next call connects to the next seed that answers, round robin;
    * `pipeline_at/4` sends a pipeline on a connection of its own to the node
      named (an `ASK`'s), closed after the replies.

  Error replies are `%EmqId.Test.Resp.Error{message: ...}`, as Redix gives
  `%Redix.Error{}`. Options: `read_timeout:` (ms, 1000; a pipeline's `WAIT`
  timeouts are added to it) and `connect_timeout:` (ms, 300).
  """
  @behaviour EmqId.Lease.Client
  use GenServer

  defmodule Error do
    @moduledoc "An error reply."
    defexception [:message]
  end

  @redirects 5

  @doc "A client of `seeds` (`[{host, port}]`); it connects at its first command."
  def start_link(seeds, opts \\ []) when is_list(seeds) and seeds != [] do
    GenServer.start_link(__MODULE__, {seeds, opts})
  end

  @impl EmqId.Lease.Client
  def command(conn, command) do
    with {:ok, [reply]} <- pipeline(conn, [command]), do: {:ok, reply}
  end

  @impl EmqId.Lease.Client
  def pipeline(conn, commands), do: GenServer.call(conn, {:pipeline, commands}, :infinity)

  @impl EmqId.Lease.Client
  def pipeline_at(conn, host, port, commands), do: GenServer.call(conn, {:pipeline_at, host, port, commands}, :infinity)

  @impl GenServer
  def init({seeds, opts}) do
    {:ok,
     %{
       seeds: Enum.map(seeds, fn {host, port} -> {to_charlist(host), port} end),
       next: 0,
       socket: nil,
       # The node the last connection was opened to: a redirect's target without a host is on it.
       at: nil,
       read_timeout: Keyword.get(opts, :read_timeout, 1_000),
       connect_timeout: Keyword.get(opts, :connect_timeout, 300)
     }}
  end

  @impl GenServer
  def handle_call({:pipeline, commands}, _from, state) do
    {reply, state} = send_pipeline(state, commands, @redirects)
    {:reply, reply, state}
  end

  def handle_call({:pipeline_at, host, port, commands}, _from, state) do
    reply =
      with {:ok, socket} <- dial(state, node(state, host, port)) do
        replies =
          with :ok <- :gen_tcp.send(socket, Enum.map(commands, &encode/1)),
               do: read(socket, length(commands), deadline(state, commands))

        :gen_tcp.close(socket)
        replies
      end

    {:reply, reply, state}
  end

  # A redirect's node; one without a host is on the host the last connection was opened to.
  defp node(state, nil, port), do: {elem(state.at || {~c"localhost", port}, 0), port}
  defp node(_state, host, port), do: {to_charlist(host), port}

  defp send_pipeline(state, commands, redirects) do
    with {:ok, state} <- connect(state),
         :ok <- :gen_tcp.send(state.socket, Enum.map(commands, &encode/1)),
         {:ok, replies} <- read(state.socket, length(commands), deadline(state, commands)) do
      follow(state, commands, replies, redirects)
    else
      {:error, reason} -> {{:error, reason}, drop(state)}
    end
  end

  defp follow(state, commands, [%Error{message: "MOVED " <> _ = text} | _] = replies, redirects) when redirects > 0 do
    case EmqId.Lease.redirect(text) do
      %{host: host, port: port} ->
        node = node(state, host, port)
        state = drop(state)

        case dial(state, node) do
          {:ok, socket} -> send_pipeline(%{state | socket: socket, at: node}, commands, redirects - 1)
          {:error, reason} -> {{:error, reason}, state}
        end

      # No node named: the replies go back, a fault to the caller.
      nil ->
        {{:ok, replies}, state}
    end
  end

  defp follow(state, _commands, [%Error{message: "READONLY" <> _} | _] = replies, _), do: {{:ok, replies}, drop(state)}
  defp follow(state, _commands, replies, _redirects), do: {{:ok, replies}, state}

  # Reading waits for WAIT's own timeout on top of the read timeout.
  defp deadline(state, commands) do
    waits =
      for [verb, _replicas, ms] <- commands,
          String.upcase(to_string(verb)) == "WAIT",
          do: String.to_integer(to_string(ms))

    System.monotonic_time(:millisecond) + state.read_timeout + Enum.sum(waits)
  end

  # -- connecting: the socket in hand, else the seeds from the next one on

  defp connect(%{socket: socket} = state) when socket != nil, do: {:ok, state}
  defp connect(state), do: try_seeds(state, length(state.seeds), :no_seed)

  defp try_seeds(_state, 0, last), do: {:error, last}

  defp try_seeds(state, left, _last) do
    seed = Enum.at(state.seeds, rem(state.next, length(state.seeds)))
    state = %{state | next: state.next + 1}

    case dial(state, seed) do
      {:ok, socket} -> {:ok, %{state | socket: socket, at: seed}}
      {:error, reason} -> try_seeds(state, left - 1, reason)
    end
  end

  defp dial(state, {host, port}),
    do: :gen_tcp.connect(host, port, [:binary, active: false, nodelay: true], state.connect_timeout)

  defp drop(%{socket: nil} = state), do: state

  defp drop(state) do
    :gen_tcp.close(state.socket)
    %{state | socket: nil}
  end

  # -- RESP2

  defp encode(command) do
    args = Enum.map(command, &to_string/1)
    ["*#{length(args)}\r\n" | Enum.map(args, &["$#{byte_size(&1)}\r\n", &1, "\r\n"])]
  end

  defp read(socket, count, deadline, buffer \\ "", replies \\ [])
  defp read(_socket, 0, _deadline, _buffer, replies), do: {:ok, Enum.reverse(replies)}

  defp read(socket, count, deadline, buffer, replies) do
    case parse(buffer) do
      {:ok, reply, rest} ->
        read(socket, count - 1, deadline, rest, [reply | replies])

      :more ->
        with {:ok, data} <- :gen_tcp.recv(socket, 0, max(deadline - System.monotonic_time(:millisecond), 0)),
             do: read(socket, count, deadline, buffer <> data, replies)
    end
  end

  @doc false
  # One reply off the front of `buffer`: {:ok, reply, rest}, or :more.
  def parse(buffer) do
    case :binary.split(buffer, "\r\n") do
      [_incomplete] -> :more
      [<<type, line::binary>>, rest] -> value(type, line, rest)
    end
  end

  defp value(?+, line, rest), do: {:ok, line, rest}
  defp value(?-, line, rest), do: {:ok, %Error{message: line}, rest}
  defp value(?:, line, rest), do: {:ok, String.to_integer(line), rest}

  defp value(?$, line, rest) do
    case String.to_integer(line) do
      -1 ->
        {:ok, nil, rest}

      n when byte_size(rest) >= n + 2 ->
        {:ok, binary_part(rest, 0, n), binary_part(rest, n + 2, byte_size(rest) - n - 2)}

      _ ->
        :more
    end
  end

  defp value(?*, line, rest) do
    case String.to_integer(line) do
      -1 -> {:ok, nil, rest}
      n -> elements(n, rest, [])
    end
  end

  defp elements(0, rest, acc), do: {:ok, Enum.reverse(acc), rest}

  defp elements(n, rest, acc) do
    with {:ok, element, rest} <- parse(rest), do: elements(n - 1, rest, [element | acc])
  end
end
