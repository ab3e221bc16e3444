defmodule EmqId.Error do
  @moduledoc """
  Raised by the bang functions: `gate` is the contract's name for the rule an
  input broke (one of `EmqId.gates/0`), the same word every emq-id runtime
  uses; `:self_check` from `EmqId.self_check!/0`.

      iex> EmqId.parse!("USR0KHTOWnGL!C")
      ** (EmqId.Error) emq_id: charset
  """
  defexception [:gate, :message]

  @impl true
  def exception(gate) when is_atom(gate), do: %__MODULE__{gate: gate, message: "emq_id: #{gate}"}
  def exception({gate, detail}), do: %__MODULE__{gate: gate, message: "emq_id: #{gate}: #{detail}"}
  def exception(opts) when is_list(opts), do: exception({Keyword.fetch!(opts, :gate), Keyword.get(opts, :message, "")})

  @doc false
  def unwrap!({:ok, value}), do: value
  def unwrap!({:error, gate}), do: raise(__MODULE__, gate)
end
