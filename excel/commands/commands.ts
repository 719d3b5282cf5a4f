/**
 * Ribbon commands of the shared runtime. The ribbon button opens the task pane (ShowTaskpane in the manifest);
 * this registers the one function command, Refresh, so a later manifest can put it on the ribbon too.
 */
import { watchDayChange } from "../functions/day-change";
import { complianceRuntime } from "../runtime";

/** Clears cached results and recalculates every COMPLIANCE.* formula in the workbook. */
export async function refreshAll(event?: Office.AddinCommands.Event): Promise<void> {
  complianceRuntime().batcher.clear();
  complianceRuntime().lookups.clear();
  try {
    await Excel.run(async (context) => {
      context.workbook.application.calculate(Excel.CalculationType.full);
      await context.sync();
    });
  } finally {
    event?.completed();
  }
}

Office.onReady(() => {
  if (Office.actions && typeof Office.actions.associate === "function")
    Office.actions.associate("refreshAll", refreshAll);
  // The shared runtime outlives the pane, so the day-counting functions stay current with the pane closed.
  watchDayChange({
    today: () => complianceRuntime().today(),
    now: () => complianceRuntime().now(),
    recalculate: () =>
      Excel.run(async (context) => {
        context.workbook.application.calculate(Excel.CalculationType.full);
        await context.sync();
      }),
  });
});
