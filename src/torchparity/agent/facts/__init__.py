"""The facts scaffold asks the agent for (calls measured, states, OpInfo samples, scenarios) and the check of its candidate tests."""
