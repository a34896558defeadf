import StrataCLI
