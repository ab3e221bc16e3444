defmodule EmqId.Application do
  @moduledoc false
  # The application's start runs the contract's vectors through the API
  # again: in a release, modules load before their @on_load functions can
  # see each other, so this is where a release refuses a wrong NIF.
  use Application

  @impl true
  def start(_type, _args) do
    EmqId.self_check!()
    Supervisor.start_link([], strategy: :one_for_one, name: EmqId.Supervisor)
  end
end
