// BenchRunner: this library's schedulers against the peers. The command line
// lives in BenchRunnerCLI, so that a user's executable runs the same one
// with its own schedulers registered (BenchRunnerMain.run(registering:)).
import BenchRunnerCLI

BenchRunnerMain.run()
