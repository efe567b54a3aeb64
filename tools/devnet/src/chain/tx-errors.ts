/**
 * LiteSVM reports transaction errors as native objects and numeric enums; Solana's
 * JSON-RPC reports them as `"Name"`, `{ "InstructionError": [index, inner] }` and
 * `{ "Custom": code }`. Names follow the enum order of litesvm's internal.d.ts.
 */
const TX_ERRORS = [
  'AccountInUse', 'AccountLoadedTwice', 'AccountNotFound', 'ProgramAccountNotFound', 'InsufficientFundsForFee',
  'InvalidAccountForFee', 'AlreadyProcessed', 'BlockhashNotFound', 'CallChainTooDeep', 'MissingSignatureForFee',
  'InvalidAccountIndex', 'SignatureFailure', 'InvalidProgramForExecution', 'SanitizeFailure', 'ClusterMaintenance',
  'AccountBorrowOutstanding', 'WouldExceedMaxBlockCostLimit', 'UnsupportedVersion', 'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit', 'WouldExceedAccountDataBlockLimit', 'TooManyAccountLocks',
  'AddressLookupTableNotFound', 'InvalidAddressLookupTableOwner', 'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex', 'InvalidRentPayingAccount', 'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit', 'MaxLoadedAccountsDataSizeExceeded', 'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit', 'UnbalancedTransaction', 'ProgramCacheHitMaxLimit', 'CommitCancelled',
];

const INSTRUCTION_ERRORS = [
  'GenericError', 'InvalidArgument', 'InvalidInstructionData', 'InvalidAccountData', 'AccountDataTooSmall',
  'InsufficientFunds', 'IncorrectProgramId', 'MissingRequiredSignature', 'AccountAlreadyInitialized',
  'UninitializedAccount', 'UnbalancedInstruction', 'ModifiedProgramId', 'ExternalAccountLamportSpend',
  'ExternalAccountDataModified', 'ReadonlyLamportChange', 'ReadonlyDataModified', 'DuplicateAccountIndex',
  'ExecutableModified', 'RentEpochModified', 'NotEnoughAccountKeys', 'AccountDataSizeChanged', 'AccountNotExecutable',
  'AccountBorrowFailed', 'AccountBorrowOutstanding', 'DuplicateAccountOutOfSync', 'InvalidError',
  'ExecutableDataModified', 'ExecutableLamportChange', 'ExecutableAccountNotRentExempt', 'UnsupportedProgramId',
  'CallDepth', 'MissingAccount', 'ReentrancyNotAllowed', 'MaxSeedLengthExceeded', 'InvalidSeeds', 'InvalidRealloc',
  'ComputationalBudgetExceeded', 'PrivilegeEscalation', 'ProgramEnvironmentSetupFailure', 'ProgramFailedToComplete',
  'ProgramFailedToCompile', 'Immutable', 'IncorrectAuthority', 'AccountNotRentExempt', 'InvalidAccountOwner',
  'ArithmeticOverflow', 'UnsupportedSysvar', 'IllegalOwner', 'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded', 'MaxInstructionTraceLengthExceeded', 'BuiltinProgramsMustConsumeComputeUnits', 'BorshIoError',
];

type Native = { index?: number; accountIndex?: number; code?: number; err?: () => unknown; constructor: { name: string } };

function instructionError(inner: unknown): unknown {
  if (typeof inner === 'number') return INSTRUCTION_ERRORS[inner] ?? 'GenericError';
  const native = inner as Native;
  if (typeof native.code === 'number') return { Custom: native.code };
  return native.constructor.name.replace(/^InstructionError/, '');
}

/** Solana JSON form of a LiteSVM transaction error. */
export function toRpcError(err: unknown): unknown {
  if (typeof err === 'number') return TX_ERRORS[err] ?? 'SanitizeFailure';
  const native = err as Native;
  if (typeof native.err === 'function' && typeof native.index === 'number') {
    return { InstructionError: [native.index, instructionError(native.err())] };
  }
  if (typeof native.index === 'number') return { DuplicateInstruction: native.index };
  if (typeof native.accountIndex === 'number') {
    const name = native.constructor.name.replace(/^TransactionError/, '');
    return { [name]: { account_index: native.accountIndex } };
  }
  return 'SanitizeFailure';
}
