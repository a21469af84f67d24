#!/bin/sh
# Azure CLI deploy path (the azd path is azure.yaml). Run from anywhere; the
# Makefile calls it as infra/deploy.sh <command>.
#
#   check      validate the deployment settings (also azd's preprovision hook)
#   what-if    preview the subscription deployment (az deployment sub what-if)
#   infra      provision or update everything in infra/bicep
#   app        deploy bin/app.zip (built by `make package`) to the app
#   outputs    print the deployment outputs (names and URLs)
#
# Settings come from the environment; main.bicepparam reads the same names:
#   AZURE_ENV_NAME      environment name, seeds resource names (todoaudit-dev)
#   AZURE_LOCATION      region offering the hosting plan (swedencentral)
#   HOSTING_PLAN        flex (Flex Consumption) | premium (Elastic Premium EP1) (flex)
#   AZURE_SUBSCRIPTION_ID  subscription (default: az account show)
#   PARTITION_SCHEME    hierarchical | category | synthetic (hierarchical)
#   SYNTHETIC_BUCKETS   1-100 (8)
#   COSMOS_CAPACITY_MODE  serverless | autoscale (serverless)
#   COSMOS_AUTOSCALE_MAX_RU  autoscale max RU/s, >= 1000 (1000)
#   AUTH_CLIENT_ID      Entra application (client) id of the API
#   AUTH_MODE           entra | easyauth | single (entra with AUTH_CLIENT_ID, else easyauth)
#   AUTH_AUDIENCE       aud the handler requires under entra (AUTH_CLIENT_ID)
#   APP_SERVICE_AUTH    true | false: App Service Authentication in front (true)
#   ADMIN_USERS         single only: user ids allowed on /api/manage
#   VERSION_TTL_SECONDS version document retention (2592000)
#   AZURE_PRINCIPAL_ID  object id granted Cosmos data access (default: the
#                       signed-in user; set GRANT_DEPLOYER_DATA_ACCESS=0 to skip)
#   FUNCTIONS_CUSTOM_RUNTIME_VERSION  Flex runtime version for custom (1.0)
#   ALERT_EMAIL         e-mail address the alerts go to (none: the action
#                       group has no receivers; add them in the portal)
#   ALLOW_UNCONFIGURED_EASYAUTH=1  deploy AUTH_MODE=easyauth without App Service
#                       Authentication (only if you configure it yourself)
set -eu

here=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)
root=$(dirname -- "$here")
params="$root/infra/bicep/main.bicepparam"

: "${AZURE_ENV_NAME:=todoaudit-dev}"
: "${AZURE_LOCATION:=swedencentral}"
: "${AUTH_CLIENT_ID:=}"
if [ -z "${AUTH_MODE:-}" ]; then
	if [ -n "$AUTH_CLIENT_ID" ]; then AUTH_MODE=entra; else AUTH_MODE=easyauth; fi
fi
: "${APP_SERVICE_AUTH:=true}"
: "${HOSTING_PLAN:=flex}"
export AZURE_ENV_NAME AZURE_LOCATION AUTH_MODE AUTH_CLIENT_ID APP_SERVICE_AUTH HOSTING_PLAN
deployment="todoaudit-$AZURE_ENV_NAME"

die() {
	echo "deploy.sh: $*" >&2
	exit 1
}

need() {
	command -v "$1" >/dev/null 2>&1 || die "$1 is not installed ($2)"
}

check() {
	case "$APP_SERVICE_AUTH" in
	true | false) ;;
	*) die "APP_SERVICE_AUTH=$APP_SERVICE_AUTH is not true or false" ;;
	esac
	case "$AUTH_MODE" in
	entra)
		[ -n "$AUTH_CLIENT_ID" ] || die "AUTH_MODE=entra needs AUTH_CLIENT_ID (the Entra application whose tokens the handler accepts)"
		;;
	easyauth)
		if { [ -z "$AUTH_CLIENT_ID" ] || [ "$APP_SERVICE_AUTH" != true ]; } && [ "${ALLOW_UNCONFIGURED_EASYAUTH:-0}" != 1 ]; then
			die "AUTH_MODE=easyauth needs App Service Authentication: AUTH_CLIENT_ID (the Entra app registration it validates tokens for) and APP_SERVICE_AUTH=true.
Without it nothing strips a caller's own X-MS-CLIENT-PRINCIPAL headers.
Prefer AUTH_MODE=entra; or set AUTH_MODE=single, or ALLOW_UNCONFIGURED_EASYAUTH=1 if you configure authentication yourself before use."
		fi
		;;
	single) ;;
	dev) die "AUTH_MODE=dev trusts the X-User-Id header and is refused under the Functions host; use entra, easyauth or single" ;;
	*) die "AUTH_MODE=$AUTH_MODE is not entra, easyauth or single" ;;
	esac
	if [ -n "${ADMIN_USERS:-}" ] && [ "$AUTH_MODE" != single ]; then
		die "ADMIN_USERS names admins under AUTH_MODE=single only; under $AUTH_MODE assign the Todo.Admin app role"
	fi
	case "${PARTITION_SCHEME:-hierarchical}" in
	hierarchical | category | synthetic) ;;
	*) die "PARTITION_SCHEME=$PARTITION_SCHEME is not hierarchical, category or synthetic" ;;
	esac
	case "$HOSTING_PLAN" in
	flex | premium) ;;
	*) die "HOSTING_PLAN=$HOSTING_PLAN is not flex or premium" ;;
	esac
	case "${COSMOS_CAPACITY_MODE:-serverless}" in
	serverless | autoscale) ;;
	*) die "COSMOS_CAPACITY_MODE=$COSMOS_CAPACITY_MODE is not serverless or autoscale" ;;
	esac
	case "${ALERT_EMAIL:-}" in
	*[[:space:]]* | *@*@*) die "ALERT_EMAIL=$ALERT_EMAIL is not one e-mail address" ;;
	'' | ?*@?*.?*) ;;
	*) die "ALERT_EMAIL=$ALERT_EMAIL is not an e-mail address" ;;
	esac
}

az_ready() {
	need az "https://learn.microsoft.com/cli/azure/install-azure-cli"
	az account show --output none 2>/dev/null || die "not signed in: run az login"
	if [ -n "${AZURE_SUBSCRIPTION_ID:-}" ]; then
		az account set --subscription "$AZURE_SUBSCRIPTION_ID"
	fi
	if [ -z "${AZURE_PRINCIPAL_ID:-}" ] && [ "${GRANT_DEPLOYER_DATA_ACCESS:-1}" != 0 ]; then
		# A user gets Cosmos data access for local runs; a service principal
		# (CI) has no signed-in user and gets none.
		AZURE_PRINCIPAL_ID=$(az ad signed-in-user show --query id --output tsv 2>/dev/null || true)
	fi
	export AZURE_PRINCIPAL_ID="${AZURE_PRINCIPAL_ID:-}"
}

output() {
	az deployment sub show --name "$deployment" --query "properties.outputs.$1.value" --output tsv
}

cmd=${1:-}
case "$cmd" in
check)
	check
	echo "deploy.sh: settings OK (env $AZURE_ENV_NAME, $AZURE_LOCATION, HOSTING_PLAN=$HOSTING_PLAN, AUTH_MODE=$AUTH_MODE)"
	;;
what-if)
	check
	az_ready
	az deployment sub what-if --name "$deployment" --location "$AZURE_LOCATION" --parameters "$params"
	;;
infra)
	check
	az_ready
	az deployment sub create --name "$deployment" --location "$AZURE_LOCATION" --parameters "$params" \
		--query "properties.outputs" --output json
	;;
app)
	az_ready
	# The package make package wrote (cmd/package-zip): its entries carry
	# Unix modes, the handler's run bit included, whatever zip tools this
	# machine has.
	zip="$root/bin/app.zip"
	[ -f "$zip" ] || die "$zip is missing: run make package"
	app=$(output FUNCTION_APP_NAME) || die "no deployment $deployment: run make deploy-infra first"
	rg=$(output AZURE_RESOURCE_GROUP)
	if [ "$(output HOSTING_PLAN)" = premium ]; then
		# Elastic Premium runs from the package blob it fetches with its
		# identity: upload with your Entra identity (shared keys are off),
		# restart so that the host loads the package from the same URL, and
		# sync triggers, which a package URL deployment must do itself
		# (Azure Functions: Deployment technologies, Trigger syncing).
		url=$(output PACKAGE_URL)
		account=$(output STORAGE_ACCOUNT_NAME)
		container=$(echo "$url" | sed 's|^https://[^/]*/||; s|/.*||')
		blob=${url##*/}
		az storage blob upload --auth-mode login --account-name "$account" --container-name "$container" \
			--name "$blob" --file "$zip" --overwrite --output none
		az functionapp restart --resource-group "$rg" --name "$app"
		id=$(az functionapp show --resource-group "$rg" --name "$app" --query id --output tsv)
		az rest --method post --url "$id/syncfunctiontriggers?api-version=2025-03-01" --output none
	else
		az functionapp deployment source config-zip --resource-group "$rg" --name "$app" --src "$zip"
	fi
	echo "deploy.sh: deployed to $(output API_BASE_URL)"
	;;
outputs)
	az_ready
	az deployment sub show --name "$deployment" --query "properties.outputs" --output json
	;;
*)
	echo "usage: infra/deploy.sh check|what-if|infra|app|outputs" >&2
	exit 2
	;;
esac
