// Stress: the dispose-race harness over this library's schedulers. See
// StressOptions, or run --help. The program lives in StressKit (StressMain),
// so that a user's executable runs the same one with its own schedulers
// registered (StressMain.run(registering:)).
import StressKit

StressMain.run()
