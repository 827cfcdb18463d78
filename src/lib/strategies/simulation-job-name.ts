/** The job that runs a strategy simulation (simulation.ts registers its handler). */
export const SIMULATION_JOB = 'strategies.simulate';
