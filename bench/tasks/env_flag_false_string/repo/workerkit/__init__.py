from workerkit.env import WorkerSettings, env_flag, env_int, load_settings

__all__ = ["WorkerSettings", "env_flag", "env_int", "load_settings"]
